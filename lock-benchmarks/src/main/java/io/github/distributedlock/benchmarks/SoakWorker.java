package io.github.distributedlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.redis.RedisLockClient;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * One application instance of the soak run ({@link SoakRunner}): its threads lock random keys and, inside
 * each lock, add one to that key's counter by reading it and writing it back through a fenced write (refused
 * for a token not greater than the last accepted one). It records in Redis, as they happen: acknowledged
 * increments, refused writes (token regressions), and overlaps (another holder entered the key's critical
 * section while this one was inside). Arguments: Redis port, generation name, threads, keys, end time (epoch
 * ms), lease (ms).
 */
public final class SoakWorker {

	/** Writes the counter only with a token greater than the last accepted one. */
	static final RedisScript<Long> FENCED_SET = RedisScript.of("""
			local fence = tonumber(redis.call('HGET', KEYS[1], 'fence') or '0')
			if tonumber(ARGV[1]) <= fence then
			    return 0
			end
			redis.call('HSET', KEYS[1], 'fence', ARGV[1], 'value', ARGV[2])
			return 1
			""", Long.class);

	/** Deletes the key only if it still holds the given value; returns 1 if it did. */
	static final RedisScript<Long> LEAVE = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			    return redis.call('DEL', KEYS[1])
			end
			return 0
			""", Long.class);

	static final String STATS = "soak:stats";

	private SoakWorker() {
	}

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		String generation = args[1];
		int threads = Integer.parseInt(args[2]);
		int keys = Integer.parseInt(args[3]);
		long endMillis = Long.parseLong(args[4]);
		Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		RedisLockClient client = new RedisLockClient(factory, "soak:lock:");
		DistributedLockTemplate template = new DistributedLockTemplate(client, lease, Duration.ofSeconds(30));
		AtomicLong acquisitions = new AtomicLong();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			String me = generation + ":" + t;
			Thread worker = new Thread(() -> {
				while (System.currentTimeMillis() < endMillis) {
					String key = "k" + ThreadLocalRandom.current().nextInt(keys);
					try {
						template.execute(LockDefinition.of(key), () -> {
							increment(redis, key, me, LockContext.current().fencingToken());
							return null;
						});
						acquisitions.incrementAndGet();
					}
					catch (RuntimeException ex) {
						redis.opsForHash().increment(STATS, "errors", 1);
					}
				}
			}, "soak-" + t);
			worker.start();
			workers.add(worker);
		}
		long reported = 0;
		while (workers.stream().anyMatch(Thread::isAlive)) {
			Thread.sleep(1000);
			long now = acquisitions.get();
			redis.opsForHash().increment(STATS, "acquisitions", now - reported);
			reported = now;
		}
		redis.opsForHash().increment(STATS, "acquisitions", acquisitions.get() - reported);
		client.close();
		factory.destroy();
	}

	private static void increment(StringRedisTemplate redis, String key, String me, long token) {
		String inside = "soak:inside:" + key;
		redis.opsForValue().set(inside, me);
		Object value = redis.opsForHash().get("soak:counter:" + key, "value");
		long next = ((value != null) ? Long.parseLong(value.toString()) : 0) + 1;
		Long written = redis.execute(FENCED_SET, List.of("soak:counter:" + key), Long.toString(token),
				Long.toString(next));
		if (Long.valueOf(1).equals(written)) {
			redis.opsForValue().increment("soak:acked");
		}
		else {
			redis.opsForHash().increment(STATS, "refused", 1);
		}
		if (!Long.valueOf(1).equals(redis.execute(LEAVE, List.of(inside), me))) {
			// someone else entered while this holder was inside
			redis.opsForHash().increment(STATS, "overlaps", 1);
		}
	}

}
