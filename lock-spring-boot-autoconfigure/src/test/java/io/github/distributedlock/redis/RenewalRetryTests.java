package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A renewal that fails is retried while the lease lasts, but not ever faster towards its end: no more than one
 * try every {@link LeaseRenewer#RETRY_GAP_MILLIS} ms per lock (issue 18, item 5). The renewals fail for real:
 * the lock's key is overwritten with a string, on which the renewal script fails with WRONGTYPE.
 */
class RenewalRetryTests {

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private final RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");

	@AfterEach
	void close() {
		this.client.close();
	}

	@Test
	void failedRenewalsAreRetriedAtABoundedRateToTheEndOfTheLease() {
		List<Long> failedAt = new CopyOnWriteArrayList<>();
		this.client.setLockObserver(new LockObserver() {
			@Override
			public void renewalFailed(String key, LockType type) {
				failedAt.add(System.nanoTime());
			}
		});
		DistributedLockTemplate locks = new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ZERO);
		String key = "retry:" + UUID.randomUUID();
		LockHandle handle = locks.acquire(LockDefinition.builder(key).lease(Duration.ofMillis(1500)).build());
		redis.opsForValue().set("lock:" + key, "not a lock");
		try {
			await().atMost(Duration.ofSeconds(5)).until(handle::isLost);
			assertThat(failedAt).as("retried while the lease lasted").hasSizeGreaterThanOrEqualTo(3);
			// one try every 50 ms at most: four in any 150 ms, and a little room for late observer calls (without
			// the bound, the tries of the last 150 ms of the lease come a third of what is left apart: a dozen)
			assertThat(mostWithin(failedAt, TimeUnit.MILLISECONDS.toNanos(150))).as("tries within 150 ms")
				.isLessThanOrEqualTo(6);
			assertThat(failedAt).as("tries in all").hasSizeLessThanOrEqualTo(15);
		}
		finally {
			redis.delete("lock:" + key);
		}
		assertThatThrownBy(handle::close).isInstanceOf(DistributedLockException.class);
	}

	/** The most of the times that fall within one window of {@code windowNanos}. */
	private static int mostWithin(List<Long> times, long windowNanos) {
		List<Long> sorted = new ArrayList<>(times);
		sorted.sort(null);
		int most = 0;
		for (int from = 0, to = 0; to < sorted.size(); to++) {
			while (sorted.get(to) - sorted.get(from) > windowNanos) {
				from++;
			}
			most = Math.max(most, to - from + 1);
		}
		return most;
	}

}
