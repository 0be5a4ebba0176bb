package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A loss is told to observers (and so published as a {@code LockLostEvent}) off the Redis client's I/O
 * threads: an observer that takes its time holds up no other lock of the client.
 */
class SlowObserverTests {

	private final RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");

	private final CountDownLatch observerMayReturn = new CountDownLatch(1);

	private final CountDownLatch observerCalled = new CountDownLatch(1);

	@AfterEach
	void close() {
		this.observerMayReturn.countDown();
		this.client.close();
	}

	@Test
	void anObserverThatBlocksOnALossHoldsUpNoOtherLock() throws Exception {
		this.client.setLockObserver(new LockObserver() {
			@Override
			public void lost(String key, LockType type, String reason) {
				observerCalled.countDown();
				try {
					// a listener of LockLostEvent that sends a mail, say
					observerMayReturn.await(20, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		});
		DistributedLockTemplate locks = new DistributedLockTemplate(this.client, Duration.ofSeconds(30),
				Duration.ofSeconds(5));
		String key = "slow-observer:" + UUID.randomUUID();
		LockHandle lost = locks.acquire(LockDefinition.builder(key).lease(Duration.ofMillis(300)).build());
		SharedRedis.redis().delete("lock:" + key);
		assertThat(this.observerCalled.await(10, TimeUnit.SECONDS)).as("the observer was told of the loss").isTrue();
		// while the observer still blocks, the client's other locks come and go, and are renewed
		long start = System.nanoTime();
		for (int i = 0; i < 20; i++) {
			locks.execute("slow-observer:other:" + i, () -> null);
		}
		String renewed = "slow-observer:renewed:" + UUID.randomUUID();
		try (LockHandle held = locks.acquire(LockDefinition.builder(renewed).lease(Duration.ofMillis(300)).build())) {
			await().pollDelay(Duration.ofMillis(900)).atMost(Duration.ofSeconds(5)).until(() -> true);
			assertThat(held.isLost()).as("renewed while the observer blocks").isFalse();
		}
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		this.observerMayReturn.countDown();
		assertThatThrownBy(lost::close).isInstanceOf(io.github.distributedlock.core.LockLostException.class);
	}

}
