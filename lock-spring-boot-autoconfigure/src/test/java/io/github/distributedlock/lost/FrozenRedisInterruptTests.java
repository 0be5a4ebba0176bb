package io.github.distributedlock.lost;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockLoss;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * {@code onLost = INTERRUPT} when renewals cannot get through: the Redis server is frozen (SIGSTOP) under a
 * holder, so its renewals go unanswered (the command timeout is 2 s, longer than the lease). The holder's
 * thread is interrupted when its confirmed lease ends, not when the renewal times out; with {@code NONE} it is
 * not interrupted at all.
 */
@ExtendWith(OutputCaptureExtension.class)
class FrozenRedisInterruptTests {

	private static final long LEASE_MILLIS = 900;

	private static final long RENEWAL_PERIOD_MILLIS = LEASE_MILLIS / 3;

	private RedisServer server;

	private LettuceConnectionFactory connectionFactory;

	private RedisLockClient client;

	private final String key = "frozen:" + UUID.randomUUID();

	@BeforeEach
	void start() {
		this.server = RedisServer.start();
		this.connectionFactory = this.server.connectionFactory();
		this.client = new RedisLockClient(this.connectionFactory, "lock:");
	}

	@AfterEach
	void stop() {
		this.server.resume();
		this.client.close();
		this.connectionFactory.destroy();
		this.server.close();
	}

	@Test
	void theHolderIsInterruptedWithinARenewalPeriodOfItsLeaseEnd() throws Exception {
		Outcome outcome = holdWhileFrozen(OnLockLoss.INTERRUPT);
		assertThat(outcome.interruptedAt).isNotEqualTo(Long.MIN_VALUE);
		long afterLeaseEnd = TimeUnit.NANOSECONDS.toMillis(outcome.interruptedAt - outcome.leaseEndsAt);
		System.out.println("onLost = INTERRUPT: interrupted " + afterLeaseEnd + " ms after the confirmed lease ended"
				+ " (lease " + LEASE_MILLIS + " ms, renewal period " + RENEWAL_PERIOD_MILLIS + " ms)");
		// never before the lease ended; about one renewal period after it, with room for a loaded machine
		assertThat(afterLeaseEnd).isBetween(-5L, RENEWAL_PERIOD_MILLIS + 700);
		assertThat(outcome.failure).isInstanceOf(LockLostException.class);
	}

	@Test
	void withNoneTheHolderIsNotInterrupted() throws Exception {
		Outcome outcome = holdWhileFrozen(OnLockLoss.NONE);
		assertThat(outcome.interruptedAt).isEqualTo(Long.MIN_VALUE);
		assertThat(outcome.failure).isInstanceOf(LockLostException.class);
	}

	/**
	 * The release of a hold told lost does not wait for the frozen server: the caller gets its
	 * {@link LockLostException} as soon as the interrupted method returns, not a command timeout (2 s) later, and
	 * the release that cannot get through says the lock was lost, never that the work under it stands.
	 */
	@Test
	void theReleaseOfAHoldToldLostNeitherWaitsForRedisNorSaysTheWorkStands(CapturedOutput output) throws Exception {
		DistributedLockTemplate template = new DistributedLockTemplate(this.client, Duration.ofSeconds(30),
				Duration.ofSeconds(5), OnLockLoss.INTERRUPT);
		CountDownLatch running = new CountDownLatch(1);
		AtomicLong interruptedAt = new AtomicLong(Long.MIN_VALUE);
		AtomicLong returnedAt = new AtomicLong();
		CompletableFuture<Throwable> call = CompletableFuture.supplyAsync(() -> {
			try {
				// a lease long enough that the server is frozen (a process started to signal it) before it ends
				template.execute(LockDefinition.builder(this.key).lease(Duration.ofSeconds(3)).build(), () -> {
					running.countDown();
					try {
						Thread.sleep(30_000);
					}
					catch (InterruptedException ex) {
						interruptedAt.set(System.nanoTime());
					}
					return null;
				});
				return null;
			}
			catch (RuntimeException ex) {
				return ex;
			}
			finally {
				returnedAt.set(System.nanoTime());
			}
		});
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		this.server.freeze();
		long frozenAt = System.nanoTime();
		Throwable failure = call.get(20, TimeUnit.SECONDS);
		long toldAfter = TimeUnit.NANOSECONDS.toMillis(returnedAt.get() - interruptedAt.get());
		assertThat(interruptedAt.get()).isNotEqualTo(Long.MIN_VALUE);
		assertThat(interruptedAt.get() - frozenAt).as("interrupted after the freeze").isPositive();
		assertThat(failure).isInstanceOf(LockLostException.class);
		System.out.println("onLost = INTERRUPT on a frozen server: the caller had its LockLostException " + toldAfter
				+ " ms after the interrupt (command timeout 2000 ms)");
		// well under the command timeout, with room for a loaded machine
		assertThat(toldAfter).isLessThan(1000);
		// the release, still frozen out, times out and says what is true
		await().atMost(Duration.ofSeconds(15)).until(() -> output.getOut().contains("Could not release lock"));
		assertThat(output.getOut().lines().filter((line) -> line.contains("Could not release lock")))
			.allSatisfy((line) -> assertThat(line).contains("it was lost already")
				.doesNotContain("completed and stands"));
	}

	/**
	 * Holds of many lease lengths come due at many moments, so that the renewal batches sent into the frozen
	 * server fill every slot ({@code LeaseWatchdog} lets 4 wait on Redis at once) and later holds wait behind
	 * them. Each hold is still told lost when its own confirmed lease ends, not when a stuck batch comes back (a
	 * 10 s command timeout here).
	 */
	@Test
	void holdsWaitingBehindStuckRenewalsAreToldLostWhenTheirLeasesEnd() throws Exception {
		LettuceConnectionFactory slowTimeouts = slowConnectionFactory(Duration.ofSeconds(10));
		RedisLockClient client = new RedisLockClient(slowTimeouts, "lock:");
		List<LockHandle> handles = new ArrayList<>();
		try {
			for (int i = 0; i < 13; i++) {
				// leases of 600 ms to 3 s: renewal periods of 200 ms to 1 s, which do not stay in step
				handles.add(client.acquire(LockRequest.builder(this.key + ":" + i)
						.lease(Duration.ofMillis(600 + 200 * i)).timeout(Duration.ofSeconds(5)).interruptible(false)
						.build()));
			}
			this.server.freeze();
			long frozenAt = System.nanoTime();
			for (int i = 0; i < handles.size(); i++) {
				LockLostException loss = handles.get(i).whenLost().toCompletableFuture().get(8, TimeUnit.SECONDS);
				long toldAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
				// at most a lease after the freeze (its last confirmed renewal came before it), with room for a
				// loaded machine; never a command timeout (10 s)
				assertThat(toldAfter).as("hold %d: %s", i, loss.getMessage()).isLessThan(600 + 200 * i + 1500);
			}
		}
		finally {
			this.server.resume();
			handles.forEach((handle) -> catchThrowable(handle::close));
			client.close();
			slowTimeouts.destroy();
		}
	}

	/**
	 * Issue 28, finding 1: while every renewal slot waits on the frozen server (13 holds fill them, as above), a
	 * hard lease and an auto-renewed hold that are not due yet when the last of those holds is lost are still told
	 * lost when their own leases end, not when a stuck batch comes back (a 12 s command timeout here). Before,
	 * the watchdog's stuck sweep looked again only at holds already due: the hard lease was told about 12 s after
	 * the freeze.
	 */
	@Test
	void holdsNotDueYetWhileRenewalsAreStuckAreToldLostWhenTheirLeasesEnd() throws Exception {
		LettuceConnectionFactory slowTimeouts = slowConnectionFactory(Duration.ofSeconds(12));
		RedisLockClient client = new RedisLockClient(slowTimeouts, "lock:");
		List<LockHandle> handles = new ArrayList<>();
		try {
			for (int i = 0; i < 13; i++) {
				handles.add(client.acquire(LockRequest.builder(this.key + ":" + i)
						.lease(Duration.ofMillis(600 + 200 * i))
						.timeout(Duration.ofSeconds(5))
						.interruptible(false)
						.build()));
			}
			LockHandle hard = client.acquire(LockRequest.builder(this.key + ":hard")
					.lease(Duration.ofMillis(4500))
					.autoRenew(false)
					.timeout(Duration.ofSeconds(5))
					.interruptible(false)
					.build());
			LockHandle renewed = client.acquire(LockRequest.builder(this.key + ":renewed")
					.lease(Duration.ofMillis(9000))
					.timeout(Duration.ofSeconds(5))
					.interruptible(false)
					.build());
			handles.add(hard);
			handles.add(renewed);
			this.server.freeze();
			for (LockHandle handle : List.of(hard, renewed)) {
				Instant leaseEnd = handle.leaseConfirmedUntil();
				LockLostException loss = handle.whenLost().toCompletableFuture().get(20, TimeUnit.SECONDS);
				long afterLeaseEnd = Duration.between(leaseEnd, Instant.now()).toMillis();
				System.out.println("Stuck renewals: " + handle.key() + " told lost " + afterLeaseEnd
						+ " ms after its confirmed lease ended: " + loss.getMessage());
				// within its lease end (plus room for a loaded machine), never a command timeout later
				assertThat(afterLeaseEnd).as("%s: %s", handle.key(), loss.getMessage()).isBetween(-5L, 1500L);
			}
		}
		finally {
			this.server.resume();
			handles.forEach((handle) -> catchThrowable(handle::close));
			client.close();
			slowTimeouts.destroy();
		}
	}

	/**
	 * Issue 28, finding 5: a hold released after its hard lease ended, before the watchdog looked (its timer held
	 * up, as on an overloaded machine: here by a slow callback of an asynchronous acquisition that completed on
	 * it), whose release then times out on the frozen server, reports the loss. Before, the release that could
	 * not reach Redis passed for one that came in time: the work under the lock was reported a success.
	 */
	@Test
	void aReleaseAfterTheHardLeaseEndedThatCannotReachRedisReportsTheLoss() throws Exception {
		// long enough for the callback below to hold the timer before it ends, on a loaded machine
		LockHandle hard = this.client.acquire(LockRequest.builder(this.key)
				.lease(Duration.ofMillis(3000))
				.autoRenew(false)
				.timeout(Duration.ofSeconds(5))
				.interruptible(false)
				.build());
		CountDownLatch timerHeld = new CountDownLatch(1);
		CountDownLatch letTimerGo = new CountDownLatch(1);
		// queued behind the holder in the client; its acquire timeout ends on the client's timer, which runs this
		// callback and is held up by it until the release is done
		this.client.acquireAsync(LockRequest.builder(this.key)
				.lease(Duration.ofSeconds(30))
				.timeout(Duration.ofMillis(200))
				.owner(this.client.newAsyncOwner())
				.build()).whenComplete((handle, ex) -> {
					if (Thread.currentThread().getName().endsWith("-timer")) {
						timerHeld.countDown();
					}
					try {
						letTimerGo.await(30, TimeUnit.SECONDS);
					}
					catch (InterruptedException interrupted) {
						Thread.currentThread().interrupt();
					}
				});
		try {
			assertThat(timerHeld.await(10, TimeUnit.SECONDS)).isTrue();
			Instant leaseEnd = hard.leaseConfirmedUntil();
			await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(leaseEnd.plusMillis(50)));
			this.server.freeze();
			// the release times out (the command timeout is 2 s): a transient failure
			assertThatThrownBy(hard::close).isInstanceOf(LockLostException.class).hasMessageContaining("ran out");
		}
		finally {
			letTimerGo.countDown();
		}
	}

	/**
	 * Holds the lock in a method that sleeps for 3 leases, freezes Redis once it runs, and lets Redis go on
	 * when the method ended.
	 */
	/** Connections to the test's server whose commands time out after {@code commandTimeout}; destroy it. */
	private LettuceConnectionFactory slowConnectionFactory(Duration commandTimeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.server.host(), this.server.port()),
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private Outcome holdWhileFrozen(OnLockLoss onLost) throws Exception {
		DistributedLockTemplate template = new DistributedLockTemplate(this.client, Duration.ofSeconds(30),
				Duration.ofSeconds(5), onLost);
		CountDownLatch running = new CountDownLatch(1);
		AtomicReference<LockHandle> handle = new AtomicReference<>();
		AtomicLong interruptedAt = new AtomicLong(Long.MIN_VALUE);
		CompletableFuture<Throwable> call = CompletableFuture.supplyAsync(() -> {
			try {
				template.execute(LockDefinition.builder(this.key).lease(Duration.ofMillis(LEASE_MILLIS)).build(), () -> {
					handle.set(LockContext.current());
					running.countDown();
					try {
						Thread.sleep(3 * LEASE_MILLIS);
					}
					catch (InterruptedException ex) {
						interruptedAt.set(System.nanoTime());
					}
					return null;
				});
				return null;
			}
			catch (RuntimeException ex) {
				return ex;
			}
		});
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		this.server.freeze();
		// what the holder knew at the freeze: no renewal confirms anything from now on
		long leaseEndsAt = System.nanoTime()
				+ Duration.between(Instant.now(), handle.get().leaseConfirmedUntil()).toNanos();
		// the release waits on the frozen server: let it go on once the method is over
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * LEASE_MILLIS + 500);
		while (interruptedAt.get() == Long.MIN_VALUE && System.nanoTime() - deadline < 0) {
			Thread.onSpinWait();
			Thread.sleep(5);
		}
		this.server.resume();
		Throwable failure = call.get(20, TimeUnit.SECONDS);
		return new Outcome(leaseEndsAt, interruptedAt.get(), failure);
	}

	private record Outcome(long leaseEndsAt, long interruptedAt, Throwable failure) {
	}

}
