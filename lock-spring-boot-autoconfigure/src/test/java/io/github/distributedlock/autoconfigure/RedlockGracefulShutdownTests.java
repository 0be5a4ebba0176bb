package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.RedlockApplications;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application context of a Redlock instance closes while work holds a lock, or waits for one: as on the Redis
 * store, the lock stays held and renewed (no other instance gets it) until the work releases it, and a call that
 * waited when the shutdown began gets the lock and runs. Before, the Redlock client had no lifecycle: it closed
 * when its bean was destroyed and released every lock under the work that held it, told lost.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockGracefulShutdownTests {

	private final ApplicationContextRunner runner = RedlockApplications.runner("250ms",
			RedlockApplications.urls(RedlockApplications.sharedNodes()));

	@Test
	void aLockHeldByWorkStillRunningStaysHeldThroughTheShutdownUntilItsHolderReleasesIt(CapturedOutput output) {
		String key = "redlock-shutdown:" + UUID.randomUUID();
		this.runner.run((other) -> this.runner.withPropertyValues("distributed-lock.shutdown-timeout=20s")
			.run((context) -> {
				CountDownLatch inside = new CountDownLatch(1);
				CountDownLatch finish = new CountDownLatch(1);
				AtomicReference<Object> outcome = new AtomicReference<>();
				Thread holder = call(context, key, "redlock-holder", inside, finish, outcome);
				assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
				Thread closer = close(context);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> output.toString().contains("waiting up to 20000 ms for 1 Redlock lock(s)"));
				// for more than three leases of 600 ms, the other instance cannot take it
				LockClient otherInstance = other.getBean(LockClient.class);
				await().during(Duration.ofMillis(2000)).atMost(Duration.ofSeconds(5))
					.until(() -> !acquiresAtOnce(otherInstance, key));
				assertThat(closer.isAlive()).isTrue();
				finish.countDown();
				closer.join(10_000);
				holder.join(10_000);
				assertThat(outcome.get()).isEqualTo("returned");
				assertThat(output).contains("every Redlock lock was released by its holder");
				assertThat(acquiresAtOnce(otherInstance, key)).isTrue();
			}));
	}

	@Test
	void aCallWaitingForItsLockWhenTheShutdownBeginsGetsItAndRuns(CapturedOutput output) {
		String key = "redlock-waiting:" + UUID.randomUUID();
		this.runner.run((other) -> this.runner.withPropertyValues("distributed-lock.shutdown-timeout=20s")
			.run((context) -> {
				LockHandle otherHold = other.getBean(LockClient.class)
					.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(30)).build());
				assertThat(otherHold).isNotNull();
				CountDownLatch inside = new CountDownLatch(1);
				AtomicReference<Object> outcome = new AtomicReference<>();
				Thread caller = call(context, key, "redlock-caller", inside, new CountDownLatch(0), outcome);
				await().atMost(Duration.ofSeconds(10)).until(() -> caller.getState() == Thread.State.WAITING);
				Thread closer = close(context);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> output.toString().contains("and for 1 acquisition(s) under way"));
				assertThat(closer.isAlive()).isTrue();
				otherHold.close();
				closer.join(10_000);
				caller.join(10_000);
				assertThat(inside.getCount()).isZero();
				assertThat(outcome.get()).isEqualTo("returned");
			}));
	}

	/** Starts a thread that runs {@code key}'s locked section: it counts {@code inside} down, awaits {@code finish}. */
	private static Thread call(ConfigurableApplicationContext context, String key, String name, CountDownLatch inside,
			CountDownLatch finish, AtomicReference<Object> outcome) {
		DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
		Thread thread = new Thread(() -> {
			try {
				template.execute(LockDefinition.builder(key)
					.lease(Duration.ofMillis(600))
					.acquireTimeout(Duration.ofSeconds(20))
					.build(), () -> {
						inside.countDown();
						return finish.await(30, TimeUnit.SECONDS);
					});
				outcome.set("returned");
			}
			catch (Throwable ex) {
				outcome.set(ex);
			}
		}, name);
		thread.start();
		return thread;
	}

	private static Thread close(ConfigurableApplicationContext context) {
		Thread closer = new Thread(context::close, "closer");
		closer.start();
		return closer;
	}

	private static boolean acquiresAtOnce(LockClient client, String key) throws InterruptedException {
		LockHandle handle = client
			.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(30)).timeout(Duration.ZERO).build());
		if (handle == null) {
			return false;
		}
		handle.close();
		return true;
	}

}
