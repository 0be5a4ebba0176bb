package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.core.DistributedLockTemplate;
import org.awaitility.Awaitility;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures how soon a release reaches a waiter of another instance through the release subscription.
 */
final class ReleaseWakeups {

	private ReleaseWakeups() {
	}

	/**
	 * A reader on {@code holder}'s instance, a writer waiting on {@code waiter}'s; returns how long the writer
	 * took to get the lock after the release. The reader's lease must be long (30 s, say): a writer waits
	 * until the reader's lease ends unless the release notification wakes it, so only a working subscription
	 * brings it in within a second or so.
	 * @param holder the reader's instance
	 * @param waiter the writer's instance; its client must be a {@link RedisLockClient}
	 * @param key the lock key, held by nobody
	 * @param redis a connection to the Redis of both instances
	 * @return the time from the release to the writer's acquisition
	 * @throws Exception if the writer did not get the lock within 20 s
	 */
	static Duration readerReleaseWakesWriter(DistributedLockTemplate holder, DistributedLockTemplate waiter,
			String key, StringRedisTemplate redis) throws Exception {
		ReadWriteLock reader = holder.getReadWriteLock(key);
		reader.readLock().lock();
		ExecutorService pool = Executors.newSingleThreadExecutor();
		try {
			Future<Long> writer = pool.submit(() -> {
				ReadWriteLock lock = waiter.getReadWriteLock(key);
				if (!lock.writeLock().tryLock(20, TimeUnit.SECONDS)) {
					return -1L;
				}
				long acquiredAt = System.nanoTime();
				lock.writeLock().unlock();
				return acquiredAt;
			});
			RedisLockClient waiterClient = (RedisLockClient) waiter.getClient();
			// released only after the writer's first try failed (it then claims the lock: a ww: field), so
			// that the try cannot explain a quick acquisition
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> ClientProbe.of(waiterClient).waitingKeys() == 1 && redis.opsForHash()
					.keys(waiterClient.redisKey(key))
					.stream()
					.anyMatch((field) -> field.toString().startsWith("ww:")));
			long releasedAt = System.nanoTime();
			reader.readLock().unlock();
			long acquiredAt = writer.get(25, TimeUnit.SECONDS);
			assertThat(acquiredAt).as("the writer got the lock").isPositive();
			return Duration.ofNanos(acquiredAt - releasedAt);
		}
		finally {
			pool.shutdownNow();
		}
	}

}
