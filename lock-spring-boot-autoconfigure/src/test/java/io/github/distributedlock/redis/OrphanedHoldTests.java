package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Holds whose owner thread ended without releasing them are released, with a warning, instead of being renewed
 * for the life of the JVM; holds with an open handle are kept, since any thread may close a handle (issue 14,
 * item 3).
 */
@ExtendWith(OutputCaptureExtension.class)
class OrphanedHoldTests {

	private RedisLockClient client;

	private RedisLockClient other;

	private DistributedLockTemplate template;

	private String key;

	@BeforeEach
	void setUp() {
		this.client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.other = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		// renewed every 200 ms
		this.template = new DistributedLockTemplate(this.client, Duration.ofMillis(600), Duration.ofSeconds(5));
		this.key = "orphan:" + UUID.randomUUID();
	}

	@AfterEach
	void close() {
		this.client.close();
		this.other.close();
	}

	@Test
	void aLockHeldByAPoolThreadThatDiedIsReleasedWithAWarning(CapturedOutput output) throws Exception {
		Lock lock = this.template.getLock(this.key);
		ExecutorService pool = Executors.newFixedThreadPool(1, (task) -> new Thread(task, "dying-worker"));
		CountDownLatch locked = new CountDownLatch(1);
		try {
			// the task fails between lock() and unlock(): the pool replaces its worker thread, which ended
			pool.execute(() -> {
				lock.lock();
				locked.countDown();
				throw new IllegalStateException("the task failed before its unlock()");
			});
			assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
			DistributedLockTemplate otherTemplate = new DistributedLockTemplate(this.other, Duration.ofSeconds(30),
					Duration.ofSeconds(10));
			long start = System.nanoTime();
			// before: renewed for ever, so this timed out
			assertThat(otherTemplate.tryAcquire(LockDefinition.of(this.key))).hasValueSatisfying(LockHandle::close);
			System.out.println("The lock of a dead pool thread was free after "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms (lease 600 ms)");
			assertThat(output).contains("Releasing lock '" + this.key + "'", "held by thread 'dying-worker'",
					"ended without releasing it");
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aLockAThreadLeftHeldWhenItEndedIsReleasedSoItsLocalWaitersGetIt() throws Exception {
		Thread leaver = new Thread(() -> this.template.getLock(this.key).lock(), "leaving-thread");
		leaver.start();
		leaver.join(10_000);
		// a thread of the same instance queues locally behind the dead holder, and gets the lock
		assertThat(this.template.getLock(this.key).tryLock(10, TimeUnit.SECONDS)).isTrue();
		this.template.getLock(this.key).unlock();
		assertThat(SharedRedis.redis().hasKey("lock:" + this.key)).isFalse();
	}

	@Test
	void aHoldWithAnOpenHandleIsKeptAfterItsThreadEndedAndAnotherThreadClosesIt() throws Exception {
		AtomicReference<LockHandle> handle = new AtomicReference<>();
		Thread acquirer = new Thread(() -> handle.set(this.template.acquire(LockDefinition.of(this.key))), "async-acquirer");
		acquirer.start();
		acquirer.join(10_000);
		assertThat(handle.get()).isNotNull();
		// several leases later it is still held and renewed
		await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3))
			.until(() -> SharedRedis.redis().hasKey("lock:" + this.key) && !handle.get().isLost());
		handle.get().close();
		assertThat(SharedRedis.redis().hasKey("lock:" + this.key)).isFalse();
	}

}
