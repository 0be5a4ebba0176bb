package io.github.distributedlock.redis;

import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.Owners;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SentinelTopology;
import io.github.distributedlock.test.Succession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.github.distributedlock.test.LockApplications.client;
import static io.github.distributedlock.test.LockApplications.template;
import static io.github.distributedlock.test.LockApplications.redis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Redis behind Sentinel (one primary, two replicas, three sentinels), reached through Spring Boot's Sentinel
 * properties: locks and release notifications work, and after the primary is killed with SIGKILL and a
 * replica promoted they work again without a restart of the application. One topology for the class: a
 * failover takes seconds.
 */
class SentinelFailoverTests {

	/** Command timeout of the applications: a command to a dead primary fails after this. */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	private static SentinelTopology topology;

	private static ApplicationContextRunner application;

	@BeforeAll
	static void startTopology() {
		topology = SentinelTopology.start();
		application = LockApplications.runner("spring.data.redis.sentinel.master=" + SentinelTopology.MASTER,
				"spring.data.redis.sentinel.nodes=" + topology.sentinelNodes(),
				"spring.data.redis.timeout=" + COMMAND_TIMEOUT.toMillis() + "ms", "distributed-lock.lease=30s");
	}

	@AfterAll
	static void stopTopology() {
		if (topology != null) {
			topology.close();
		}
	}

	@BeforeEach
	void healthyTopology() {
		topology.awaitHealthy();
	}

	@Test
	void releasesReachWaitersOfAnotherInstanceThroughTheSentinelsPrimary() {
		LockApplications.runTwo(application, (first, second) -> {
			Duration wake = ReleaseWakeups.readerReleaseWakesWriter(template(first), template(second),
					"sentinel:" + UUID.randomUUID(), redis(first));
			System.out.println("[faults] sentinel: release to waiter of another instance: " + wake.toMillis() + " ms");
			// the reader's lease is 30 s: only the release notification explains a quick wake-up
			assertThat(wake).isLessThan(Duration.ofSeconds(5));
		});
	}

	@Test
	void afterThePrimaryIsKilledAndAReplicaPromotedLocksWorkAgainWithoutARestart() {
		LockApplications.runTwo(application, (first, second) -> {
			for (int round = 1; round <= 2; round++) {
				if (round > 1) {
					topology.awaitHealthy();
				}
				failOverUnderLocks(round, first, second);
			}
		});
	}

	/**
	 * One failover while the first instance holds two locks and the second waits for one of them: a long
	 * lease that survives the failover, and a 1 s lease that cannot.
	 */
	private static void failOverUnderLocks(int round, AssertableApplicationContext first,
			AssertableApplicationContext second) throws Exception {
		RedisLockClient holder = client(first);
		DistributedLockTemplate other = template(second);
		String longLease = "sentinel:long:" + UUID.randomUUID();
		String shortLease = "sentinel:short:" + UUID.randomUUID();
		Succession succession = new Succession(longLease);
		LockHandle held = holder.acquire(LockRequest.builder(longLease).lease(Duration.ofSeconds(15))
				.interruptible(false).build());
		assertThat(held).isNotNull();
		succession.acquired("first instance", held.fencingToken());
		assertThat((holder.acquire(LockRequest.builder(shortLease).lease(Duration.ofSeconds(1)).interruptible(false)
				.releasedByThread().build()) != null))
			.isTrue();
		// both locks are on the replicas before the crash: what was not replicated is lost with the primary
		topology.awaitReplicated();

		Duration acquireTimeout = Duration.ofSeconds(3);
		CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
			long start = System.nanoTime();
			try {
				other.execute(LockDefinition.builder(longLease).acquireTimeout(acquireTimeout).build(),
						() -> succession.acquired("second instance", LockContext.current().fencingToken()));
			}
			catch (DistributedLockException ex) {
				// not acquired in time, or Redis unreachable: either way the waiter came back
			}
			return System.nanoTime() - start;
		});

		long killedAt = System.nanoTime();
		RedisServer promoted = topology.killPrimaryAndAwaitFailover(Duration.ofSeconds(30));
		long promotedAt = System.nanoTime();
		String recovery = "sentinel-recovery:" + UUID.randomUUID();
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(10))
			.ignoreExceptionsInstanceOf(DistributedLockException.class)
			.until(() -> other.execute(LockDefinition.builder(recovery).acquireTimeout(Duration.ZERO).build(),
					() -> true));
		long recoveredAt = System.nanoTime();
		System.out.println("[faults] sentinel round " + round + ": kill -9 of the primary -> replica promoted after "
				+ millis(promotedAt - killedAt) + " ms, first acquisition after " + millis(recoveredAt - killedAt)
				+ " ms (" + millis(recoveredAt - promotedAt) + " ms after the promotion)");

		// the waiter came back within its acquire timeout and one command timeout, and did not get the lock
		long waited = waiter.get(30, TimeUnit.SECONDS);
		System.out.println("[faults] sentinel round " + round + ": waiter with a 3 s acquire timeout came back after "
				+ millis(waited) + " ms");
		assertThat(Duration.ofNanos(waited))
			.isLessThan(acquireTimeout.plus(COMMAND_TIMEOUT).plus(Duration.ofSeconds(2)));
		assertThat(succession.holders()).containsExactly("first instance");

		// the long lease is renewed on the promoted replica: still held, still exclusive
		promoted.awaitRenewal(holder.redisKey(longLease), Duration.ofSeconds(10));
		assertThat(promoted.admin().hexists(holder.redisKey(longLease),
				Owners.current(holder, longLease))).isTrue();
		assertThat(other.getLock(longLease).tryLock()).isFalse();
		holder.release(longLease, LockType.REENTRANT);
		assertThat(promoted.admin().exists(holder.redisKey(longLease))).isZero();
		// the 1 s lease ran out while no primary answered: reported lost, not silently released
		assertThatThrownBy(() -> holder.release(shortLease, LockType.REENTRANT))
			.isInstanceOf(LockLostException.class);

		// the subscription follows the primary too
		Duration wake = ReleaseWakeups.readerReleaseWakesWriter(template(first), other,
				"sentinel:wake:" + UUID.randomUUID(), redis(first));
		System.out.println("[faults] sentinel round " + round + ": release to waiter after the failover: "
				+ wake.toMillis() + " ms");
		assertThat(wake).isLessThan(Duration.ofSeconds(5));
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

}
