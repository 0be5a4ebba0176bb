package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Locks taken by virtual threads (Java 21 and later; the build targets Java 17, so the executor is looked up
 * reflectively): waiting parks the virtual thread, in the local queue and on release notifications alike.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadLockTests {

	private final List<RedisLockClient> clients = new ArrayList<>();

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	@Test
	void hundredsOfVirtualThreadsInTwoInstancesNeverHoldOneLockTogether() throws Exception {
		StringRedisTemplate redis = SharedRedis.redis();
		String key = "test:" + UUID.randomUUID();
		String counterKey = "counter:" + key;
		DistributedLockTemplate[] instances = { template(), template() };
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger maxInside = new AtomicInteger();
		int threads = 200;
		int iterations = 5;
		ExecutorService virtualThreads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
			.invoke(null);
		Concurrently.runOn(virtualThreads, threads, 120, (thread) -> {
			for (int i = 0; i < iterations; i++) {
				instances[thread % 2].execute(key, () -> {
					maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
					Concurrently.incrementUnsafely(redis, counterKey);
					inside.decrementAndGet();
					return null;
				});
			}
		});
		assertThat(maxInside.get()).isEqualTo(1);
		assertThat(redis.opsForValue().get(counterKey)).isEqualTo(Integer.toString(threads * iterations));
		assertThat(redis.hasKey("lock:" + key)).isFalse();
		redis.delete(counterKey);
	}

	private DistributedLockTemplate template() {
		RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.clients.add(client);
		return new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ofSeconds(60));
	}

}
