package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockCallback;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.ClusterTopology;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.Succession;
import org.jspecify.annotations.Nullable;
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
import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster with replicas (three primaries, three replicas), reached through Spring Boot's cluster
 * properties: after the primary that owns a lock's hash slot is failed over, by {@code CLUSTER FAILOVER} or by
 * SIGKILL, every lock type works again, held locks are still held, and releases wake waiters again. Classic
 * notifications (one subscription per instance, on some node; the sharded ones are {@link ShardedNotificationTests}'s).
 * One cluster for the class: a failover takes seconds.
 */
class ClusterFailoverTests {

	/** Client name of the waiting instance's connections, to find its subscription in CLIENT LIST. */
	private static final String WAITER = "waiter";

	private static ClusterTopology cluster;

	private static ApplicationContextRunner application;

	@BeforeAll
	static void startCluster() {
		cluster = ClusterTopology.start();
		// without a periodic topology refresh Lettuce keeps sending a dead primary's slots to it, for ever: a
		// primary killed answers no MOVED that would redirect it, and adaptive refresh alone did not recover
		// within 30 s (docs/faults.md)
		application = LockApplications.runner("spring.data.redis.cluster.nodes=" + cluster.nodes(),
				"spring.data.redis.lettuce.cluster.refresh.period=1s",
				"spring.data.redis.lettuce.cluster.refresh.adaptive=true", "spring.data.redis.timeout=1s",
				"distributed-lock.lease=30s", "distributed-lock.notifications=classic");
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@BeforeEach
	void healthyCluster() {
		cluster.awaitHealthy();
	}

	@Test
	void afterAClusterFailoverOfTheLocksPrimaryEveryLockTypeWorksAgain() {
		LockApplications.runTwo(application, (first, second) -> {
			String tag = "{" + UUID.randomUUID() + "}";
			RedisServer primary = cluster.primaryOf(client(first).redisKey(tag));
			HeldAcrossFailover held = HeldAcrossFailover.hold(client(first), tag + ":held");

			long failoverAt = System.nanoTime();
			cluster.failover(cluster.replicaOf(primary));
			long recoveredAt = firstAcquisition(first, second, tag + ":recovery");
			System.out.println("[faults] cluster: CLUSTER FAILOVER of the lock's primary -> first acquisition after "
					+ millis(recoveredAt - failoverAt) + " ms");

			held.assertStillHeldAgainst(template(second));
			everyLockTypeWorks(first, second, tag, "after CLUSTER FAILOVER");
		});
	}

	@Test
	void afterTheLocksPrimaryIsKilledEveryLockTypeWorksAgainAndReleasesWakeWaiters() {
		application.run((first) -> application.withPropertyValues("spring.data.redis.client-name=" + WAITER)
			.run((second) -> {
				// the node killed is the one the waiting instance subscribed on, and owns the lock's slot
				RedisServer subscribed = subscriptionNode(second);
				if (!subscribed.admin().info("replication").contains("role:master")) {
					cluster.failover(subscribed);
				}
				String tag = tagOwnedBy(subscribed, client(first));
				HeldAcrossFailover held = HeldAcrossFailover.hold(client(first), tag + ":held");
				assertThat(subscribed.admin().waitForReplication(1, 5000)).isEqualTo(1);

				long killedAt = System.nanoTime();
				RedisServer promoted = cluster.killAndAwaitFailover(subscribed, Duration.ofSeconds(30));
				long promotedAt = System.nanoTime();
				long recoveredAt = firstAcquisition(first, second, tag + ":recovery");
				System.out.println("[faults] cluster: kill -9 of the lock's primary -> replica promoted after "
						+ millis(promotedAt - killedAt) + " ms, first acquisition on both instances after "
						+ millis(recoveredAt - killedAt) + " ms (" + millis(recoveredAt - promotedAt)
						+ " ms after the promotion)");
				assertThat(cluster.primaryOf(client(first).redisKey(tag))).isSameAs(promoted);

				held.assertStillHeldAgainst(template(second));
				everyLockTypeWorks(first, second, tag, "after kill -9 of its subscription's node");
				System.out.println("[faults] cluster: the waiting instance subscribed on node " + subscribed.port()
						+ " before, on " + subscriptionNode(second).port() + " after");
			}));
	}

	/** The node where the instance named {@link #WAITER} listens for release notifications. */
	private static RedisServer subscriptionNode(AssertableApplicationContext instance) {
		// the subscription is made on the client's thread, not the one that starts the application, and the
		// startup's permission check subscribed once too: wait until only the client's subscription is left
		await().atMost(Duration.ofSeconds(10)).until(client(instance)::isListening);
		return await().atMost(Duration.ofSeconds(10))
			.until(() -> cluster.servers()
				.stream()
				.filter(RedisServer::isAlive)
				.filter((node) -> node.admin()
					.clientList()
					.lines()
					.anyMatch((line) -> line.contains("name=" + WAITER + " ") && !line.contains(" sub=0 ")))
				.toList(), (nodes) -> nodes.size() == 1)
			.get(0);
	}

	/** A hash tag whose slot {@code primary} owns. */
	private static String tagOwnedBy(RedisServer primary, RedisLockClient client) {
		for (int i = 0; i < 1000; i++) {
			String tag = "{" + UUID.randomUUID() + "}";
			if (cluster.primaryOf(client.redisKey(tag)) == primary) {
				return tag;
			}
		}
		throw new IllegalStateException("No slot of the primary on port " + primary.port() + " found");
	}

	/**
	 * Reentrant, read and write locks in the failed-over slot, contended by both instances, and a release that
	 * wakes a writer of the other instance.
	 */
	private static void everyLockTypeWorks(AssertableApplicationContext first, AssertableApplicationContext second,
			String tag, String when) throws Exception {
		for (LockType type : LockType.values()) {
			LockDefinition definition = LockDefinition.builder(tag + ":" + type).type(type).build();
			assertThat(template(first).execute(definition,
					() -> tryOnce(template(second), LockDefinition.builder(tag + ":" + type)
						.type(type)
						.acquireTimeout(Duration.ZERO)
						.build(), () -> "both")))
				.as(type + " lock: shared only between readers")
				.isEqualTo((type == LockType.READ) ? "both" : null);
		}
		Duration wake = ReleaseWakeups.readerReleaseWakesWriter(template(first), template(second), tag + ":wake",
				redis(first));
		System.out.println("[faults] cluster: release to waiter of another instance " + when + ": " + wake.toMillis()
				+ " ms");
		assertThat(wake).isLessThan(Duration.ofSeconds(5));
	}

	/**
	 * Tries a lock once on each instance, again and again, until an acquisition succeeds on both (each
	 * instance's Lettuce client learns the new topology on its own); returns when.
	 */
	private static long firstAcquisition(AssertableApplicationContext first, AssertableApplicationContext second,
			String key) {
		for (AssertableApplicationContext instance : List.of(first, second)) {
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(10))
				.ignoreExceptionsInstanceOf(DistributedLockException.class)
				.until(() -> template(instance)
					.execute(LockDefinition.builder(key).acquireTimeout(Duration.ZERO).build(), () -> true));
		}
		return System.nanoTime();
	}

	/** Runs {@code action} under the lock if it is acquired at once; returns {@code null} if it is not. */
	private static <T> @Nullable T tryOnce(DistributedLockTemplate template, LockDefinition definition,
			LockCallback<T, RuntimeException> action) {
		return template.tryExecuteAll(List.of(definition), action, () -> null);
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	/**
	 * A reentrant lock with a 15 s auto-renewed lease, held by the test thread across a failover.
	 */
	private record HeldAcrossFailover(RedisLockClient client, String key, Succession succession) {

		static HeldAcrossFailover hold(RedisLockClient client, String key) throws InterruptedException {
			LockHandle held = client.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(15)).interruptible(false)
					.build());
			assertThat(held).isNotNull();
			Succession succession = new Succession(key);
			succession.acquired("first instance", held.fencingToken());
			return new HeldAcrossFailover(client, key, succession);
		}

		/** The holder still holds it (renewed on the promoted replica), the other instance cannot take it. */
		void assertStillHeldAgainst(DistributedLockTemplate other) {
			// renewed on the new primary within a third of the lease
			String redisKey = this.client.redisKey(this.key);
			cluster.primaryOf(redisKey).awaitRenewal(redisKey, Duration.ofSeconds(10));
			assertThat(tryOnce(other, LockDefinition.builder(this.key).acquireTimeout(Duration.ZERO).build(),
					() -> this.succession.acquired("second instance", LockContext.current().fencingToken()))).isNull();
			assertThat(this.succession.holders()).containsExactly("first instance");
			// renewals reach the new primary, so the release finds the lock its own and does not throw
			this.client.release(this.key, LockType.REENTRANT);
		}

	}

}
