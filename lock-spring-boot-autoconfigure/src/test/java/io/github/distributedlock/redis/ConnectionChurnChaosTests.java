package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.ConnectionChurn;
import io.github.distributedlock.test.ExclusionChecker;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Mutual exclusion under connection churn (issue 17), as a new user saw it break: two application instances,
 * 4 threads each, all on one key through
 * {@link DistributedLockTemplate#execute(LockDefinition, io.github.distributedlock.core.LockCallback)} (lease
 * 2 s, acquire timeout 3 s, {@code spring.data.redis.timeout=500ms}), while a {@link ConnectionChurn} kills
 * their connections at random moments 30–400 ms apart and now and then freezes the server. The
 * {@link ExclusionChecker} then asserts that no two bodies were ever inside at once, that no update was lost,
 * that the fencing tokens strictly increase in body order, and that at least 99.5 % of the calls succeeded.
 * Lettuce delivers at least once: a command the client counted as failed (a reset connection, a timeout) may
 * still run later, after a newer attempt of the same thread. The run lasts {@code -Dchaos.seconds} (default
 * 60) and prints a one-line summary ({@code Connection churn chaos run: ...}) to the test's output.
 * <p>
 * On the code before attempt identities (owner id per thread, not per attempt), nine 60 s runs on the
 * 2-core machine shared with other builds (load average 12 to 18) all failed: 21.8, 23.7, 27.7, 30.8, 36.3,
 * 42.1, 46.0, 54.5 and 77.4 % of 6,169 to 23,308 calls succeeded (4,234 to 7,687 bodies; nearly every failure
 * {@code Could not acquire lock '...' in Redis: Connection reset}); in one run two bodies were inside at once,
 * with one lost update and one token regression; in two others, one and two tokens went backwards without an
 * overlap (a body ran under a stale grant). One 20 s run passed (99.53 % of 1,058 calls): a short run proves
 * little. The retry test failed in 7 of 14 runs of the class (one retry in about six was left holding nothing in
 * Redis while its handle said it held the lock).
 * <p>
 * A server of its own: the churn kills every client of it, and pausing it pauses everyone.
 */
class ConnectionChurnChaosTests {

	private static final Duration RUN_FOR = Duration.ofSeconds(Long.getLong("chaos.seconds", 60));

	private static final int THREADS_PER_INSTANCE = 4;

	/**
	 * Before attempt identities about one retry in six ended up holding nothing in Redis: five rounds caught it
	 * in about half the runs, in 15 to 20 s on a loaded machine.
	 */
	private static final int RETRY_ROUNDS = 5;

	private static RedisServer server;

	@BeforeAll
	static void startServer() {
		RedisServer.assumeOnPath();
		server = RedisServer.start();
	}

	@AfterAll
	static void stopServer() {
		if (server != null) {
			server.close();
		}
	}

	private static ApplicationContextRunner instances(String commandTimeout) {
		return LockApplications.runner("spring.data.redis.host=" + server.host(),
				"spring.data.redis.port=" + server.port(), "spring.data.redis.timeout=" + commandTimeout);
	}

	@Test
	void neverTwoHoldersNoLostUpdateAndIncreasingTokensWhileConnectionsAreKilled() {
		LockDefinition definition = LockDefinition.builder("churn:" + UUID.randomUUID())
			.lease(Duration.ofSeconds(2))
			.acquireTimeout(Duration.ofSeconds(3))
			.build();
		ExclusionChecker checker = new ExclusionChecker();
		String churnDone = churnWhileCalling(definition, checker, RUN_FOR);
		String summary = "Connection churn chaos run: " + checker.summary() + "; " + churnDone;
		System.out.println(summary);
		assertThat(checker.problems(0.995)).as(summary).isEmpty();
	}

	/**
	 * The same churn on a semaphore (issue 20): 3 permits, two instances x 4 threads, for half the run. Its
	 * invariants: never more than 3 bodies inside at once, no fencing token handed out twice, at least 99.5 %
	 * of the calls succeeded, and all 3 permits in use at some point (so the bound is not met by chance).
	 */
	@Test
	void neverMoreHoldersThanPermitsWhileConnectionsAreKilled() {
		int permits = 3;
		LockDefinition definition = LockDefinition.builder("churn-semaphore:" + UUID.randomUUID())
			.permits(permits)
			.lease(Duration.ofSeconds(2))
			.acquireTimeout(Duration.ofSeconds(3))
			.build();
		ExclusionChecker checker = new ExclusionChecker(permits);
		String churnDone = churnWhileCalling(definition, checker, RUN_FOR.dividedBy(2));
		String summary = "Connection churn chaos run on a semaphore of " + permits + " permits: " + checker.summary()
				+ "; " + churnDone;
		System.out.println(summary);
		assertThat(checker.problems(0.995)).as(summary).isEmpty();
		assertThat(checker.mostInside()).as(summary).isEqualTo(permits);
	}

	/**
	 * Two instances x {@link #THREADS_PER_INSTANCE} threads call {@code definition}'s body through the checker for
	 * {@code runFor} while a {@link ConnectionChurn} kills their connections.
	 * @return what the churn did, in words
	 */
	private static String churnWhileCalling(LockDefinition definition, ExclusionChecker checker, Duration runFor) {
		AtomicReference<String> churnDone = new AtomicReference<>("churn not started");
		LockApplications.runTwo(instances("500ms"), (first, second) -> {
			long deadline = System.nanoTime() + runFor.toNanos();
			try (ConnectionChurn churn = ConnectionChurn.start(server)) {
				// bounded: each call ends within its 3 s acquire timeout plus a few command timeouts
				Concurrently.run(2 * THREADS_PER_INSTANCE, runFor.toSeconds() + 60, (thread) -> {
					DistributedLockTemplate template = LockApplications.template((thread % 2 == 0) ? first : second);
					while (System.nanoTime() - deadline < 0) {
						checker.call(() -> template.execute(definition, () -> {
							checker.body(LockContext.current().fencingToken());
							return null;
						}));
					}
				});
				churnDone.set(churn.toString());
			}
		});
		return churnDone.get();
	}

	@Test
	void aRetryAfterATimedOutTryHoldsTheLockInRedis() {
		// a 1 s command timeout against a 2.5 s pause: the first try times out, and runs in Redis afterwards (the
		// pause leaves the try 1.5 s of slack to reach Redis on a loaded machine and still time out)
		LockApplications.runTwo(instances("1s"), (first, second) -> {
			DistributedLockTemplate holder = LockApplications.template(first);
			DistributedLockTemplate other = LockApplications.template(second);
			for (int round = 0; round < RETRY_ROUNDS; round++) {
				String key = "retry:" + UUID.randomUUID();
				LockDefinition tryOnce = LockDefinition.builder(key).acquireTimeout(Duration.ZERO).build();
				// connections made and scripts loaded: what the pause delays is the try itself
				holder.tryAcquire(tryOnce).orElseThrow().close();
				other.tryAcquire(tryOnce).orElseThrow().close();
				server.admin().clientPause(2500);
				assertThatExceptionOfType(DistributedLockException.class).isThrownBy(() -> holder.tryAcquire(tryOnce));
				try (LockHandle retry = holder
					.acquire(LockDefinition.builder(key).acquireTimeout(Duration.ofSeconds(5)).build())) {
					// whatever of the first try runs late (its acquisition, its withdrawal) must leave the retry's
					// hold in place: while the handle says it is held, nobody else can take the lock
					int attempt = round + 1;
					await("another instance kept out while the retry holds lock " + key)
						.during(Duration.ofMillis(500))
						.atMost(Duration.ofSeconds(5))
						.until(() -> {
							boolean keptOut = keptOut(other, tryOnce);
							assertThat(keptOut || retry.isLost())
								.as("retry %d of %d: another instance took lock %s while the retry's handle said it "
										+ "was held", attempt, RETRY_ROUNDS, key)
								.isTrue();
							return true;
						});
					assertThat(retry.isLost()).as("retry of lock %s lost", key).isFalse();
				}
			}
		});
	}

	/** Tries the lock from another instance; releases it at once if that succeeded. */
	private static boolean keptOut(DistributedLockTemplate other, LockDefinition tryOnce) {
		try {
			Optional<LockHandle> taken = other.tryAcquire(tryOnce);
			taken.ifPresent(LockHandle::close);
			return taken.isEmpty();
		}
		catch (DistributedLockException ex) {
			// the server still paused: nothing taken
			return true;
		}
	}

}
