package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.ClusterTopology;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.OnThread;
import io.github.distributedlock.test.RedisClientLibrary;
import io.github.distributedlock.test.RedisServer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Sharded notifications on a Redis 7 Cluster with replicas (three primaries, three replicas), for an ACL user that
 * may use sharded pub/sub only ({@code +spublish +ssubscribe +sunsubscribe}, no {@code publish}/{@code subscribe}):
 * every lock type wakes a waiter of another instance by notification, also after the lock's slot moved to another
 * primary or its primary was killed while the waiter waited; and a notification costs the cluster bus far fewer
 * messages than a classic one. One cluster for the class.
 */
class ShardedNotificationTests {

	private static final String USER = "locks";

	private static final String PASSWORD = "sharded-only";

	/** The sharded rule, and what Lettuce needs on a cluster: topology reads, ASKING (docs/managed-redis.md). */
	private static final String RULE = RedisPermissions.clusterAclRule("lock:", NotificationMode.SHARDED);

	/** The holder's lease: a waiter woken sooner than this was woken by a notification. */
	private static final Duration LEASE = Duration.ofSeconds(30);

	/** Client name of the instance that waits on many keys, to find its connections in CLIENT LIST. */
	private static final String MANY_WAITER = "many-waiter";

	private static ClusterTopology cluster;

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedisLockClient> clients = new ArrayList<>();

	@BeforeAll
	static void startCluster() {
		// Redis 6.2 (.ci/older-servers) has no sharded pub/sub: RedisClusterTests checks it takes the classic path
		String version;
		try (RedisServer server = RedisServer.start()) {
			version = server.admin().info("server");
		}
		assumeTrue(Integer.parseInt(version.substring(version.indexOf("redis_version:") + 14).split("\\.")[0]) >= 7,
				"sharded pub/sub needs Redis 7.0 or later");
		List<String> user = new ArrayList<>(List.of("--user", USER, "on", ">" + PASSWORD));
		user.addAll(List.of(RULE.split(" ")));
		cluster = ClusterTopology.start(user.toArray(String[]::new));
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
		cluster.servers().forEach((node) -> node.admin().aclLogReset());
	}

	@AfterEach
	void close() {
		this.clients.forEach(RedisLockClient::close);
		this.factories.forEach(RedisClientLibrary::destroy);
	}

	@Test
	void everyLockTypeWakesAWaiterOfAnotherInstanceByShardedNotificationForTheShardedOnlyUser() throws Exception {
		DistributedLockTemplate first = template(NotificationMode.AUTO);
		DistributedLockTemplate second = template(NotificationMode.AUTO);
		assertThat(this.clients).allMatch((client) -> client.getNotificationMode() == NotificationMode.SHARDED);
		long classicBefore = ShardedWaits.clusterStat(cluster, "cluster_stats_messages_publish_sent");
		List<Duration> wakeups = new ArrayList<>();
		// keys in slots of all three primaries
		for (int i = 0; i < 4; i++) {
			String key = "sharded:" + UUID.randomUUID();
			wakeups.add(wake(first, second, definition(key + ":lock", LockType.REENTRANT, 1), 1,
					definition(key + ":lock", LockType.REENTRANT, 1)));
			wakeups.add(wake(first, second, definition(key + ":rw", LockType.READ, 1), 1,
					definition(key + ":rw", LockType.WRITE, 1)));
			wakeups.add(wake(first, second, definition(key + ":rw2", LockType.WRITE, 1), 1,
					definition(key + ":rw2", LockType.READ, 1)));
			wakeups.add(wake(first, second, definition(key + ":sem", LockType.REENTRANT, 2), 2,
					definition(key + ":sem", LockType.REENTRANT, 2)));
		}
		System.out.println("[sharded] release to waiter of another instance, ms: "
				+ wakeups.stream().map(Duration::toMillis).toList());
		ShardedWaits.assertWokenByNotification(wakeups);
		assertThat(ShardedWaits.clusterStat(cluster, "cluster_stats_messages_publish_sent"))
			.as("no classic PUBLISH crossed the cluster bus").isEqualTo(classicBefore);
		ShardedWaits.assertNothingRefused(cluster);
	}

	@Test
	void anApplicationOfTheShardedOnlyUserStartsWithShardedNotificationsAndFailsToStartForcedClassic() {
		String[] properties = { "spring.data.redis.cluster.nodes=" + cluster.nodes(),
				"spring.data.redis.username=" + USER, "spring.data.redis.password=" + PASSWORD };
		LockApplications.runner(properties).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(LockApplications.client(context).getNotificationMode()).isEqualTo(NotificationMode.SHARDED);
		});
		LockApplications.runner(properties).withPropertyValues("distributed-lock.notifications=classic")
			.run((context) -> assertThat(context).getFailure()
				.hasRootCauseInstanceOf(MissingRedisPermissionException.class)
				.rootCause()
				.hasMessageContaining("publish on channel 'lock:__released'"));
	}

	@Test
	void forcedClassicTheShardedOnlyUserIsRefusedPublishAndSubscribeAtStartup() {
		LettuceConnectionFactory factory = factory(USER, PASSWORD);
		new RedisAccessProbe(factory, "lock:", NotificationMode.AUTO).check();
		new RedisAccessProbe(factory, "lock:", NotificationMode.SHARDED).check();
		assertThatExceptionOfType(MissingRedisPermissionException.class)
			.isThrownBy(() -> new RedisAccessProbe(factory, "lock:", NotificationMode.CLASSIC).check())
			.withMessageContaining("publish on channel 'lock:__released'")
			.withMessageContaining("subscribe to channel 'lock:__released'");
	}

	@Test
	void aReshardingOfTheLocksSlotWhileAWaiterWaitsLosesNoWakeup() throws Exception {
		DistributedLockTemplate first = template(NotificationMode.SHARDED);
		DistributedLockTemplate second = template(NotificationMode.SHARDED);
		List<Duration> wakeups = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			LockType type = (i % 2 == 0) ? LockType.REENTRANT : LockType.WRITE;
			String key = "resharded:" + UUID.randomUUID();
			String redisKey = this.clients.get(0).redisKey(key);
			int slot = ClusterSlots.of(redisKey);
			// released as soon as the slot moved: the holder's release follows MOVED, the waiter's subscription the
			// sunsubscribe Redis sent it
			wakeups.add(ShardedWaits.wakeAfterRelease(cluster, first, second, definition(key, type, 1), 1,
					definition(key, type, 1), () -> {
						RedisServer from = cluster.primaryOfSlot(slot);
						RedisServer to = cluster.primaries().stream().filter((p) -> p != from).findFirst().orElseThrow();
						cluster.moveSlot(slot, to);
						assertThat(cluster.primaryOf(redisKey)).isSameAs(to);
					}, false));
		}
		System.out.println("[sharded] lock's slot moved while a waiter waited (reentrant, write, ...): release to "
				+ "waiter, ms: " + wakeups.stream().map(Duration::toMillis).toList());
		ShardedWaits.assertWokenByNotification(wakeups);
		ShardedWaits.assertNothingRefused(cluster);
	}

	@Test
	void aFailoverOfTheLocksPrimaryWhileAWaiterWaitsLosesNoWakeup() throws Exception {
		DistributedLockTemplate first = template(NotificationMode.SHARDED);
		DistributedLockTemplate second = template(NotificationMode.SHARDED);
		String key = "failover:" + UUID.randomUUID();
		String redisKey = this.clients.get(0).redisKey(key);
		// released once the waiter is subscribed on the promoted replica (the holder's Lettuce knows it by then)
		Duration wakeup = ShardedWaits.wakeAfterRelease(cluster, first, second, definition(key, LockType.REENTRANT, 1),
				1, definition(key, LockType.REENTRANT, 1), () -> {
					RedisServer primary = cluster.primaryOf(redisKey);
					assertThat(primary.admin().waitForReplication(1, 5000)).isEqualTo(1);
					cluster.killAndAwaitFailover(primary, Duration.ofSeconds(30));
				}, true);
		System.out.println("[sharded] lock's primary killed (-9) while a waiter waited: release to waiter "
				+ wakeup.toMillis() + " ms");
		assertThat(wakeup).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void aClientWaitingOnManyKeysHasAtMostOneSubscriptionConnectionPerPrimaryAndDropsWhatItNoLongerNeeds()
			throws Exception {
		DistributedLockTemplate holder = template(NotificationMode.SHARDED, null, null);
		RedisLockClient waiterClient = new RedisLockClient(factory(null, null, MANY_WAITER), "lock:", 0,
				RedisLockClient.DEFAULT_SYNC_TIMEOUT, NotificationMode.SHARDED);
		this.clients.add(waiterClient);
		DistributedLockTemplate waiter = new DistributedLockTemplate(waiterClient, LEASE, Duration.ofSeconds(60));
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			keys.add("many:" + UUID.randomUUID());
		}
		long slots = keys.stream().map(waiterClient::redisKey).mapToInt(ClusterSlots::of).distinct().count();
		List<LockHandle> held = new ArrayList<>();
		keys.forEach((key) -> held.add(holder.acquire(definition(key, LockType.REENTRANT, 1))));
		List<OnThread<Boolean>> waiters = new ArrayList<>();
		for (String key : keys) {
			waiters.add(OnThread.start("many-" + key, () -> {
				waiter.acquire(definition(key, LockType.REENTRANT, 1)).close();
				return true;
			}));
		}
		try {
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				assertThat(ClientProbe.of(waiterClient).waitingKeys()).isEqualTo(keys.size());
				assertThat(ShardedWaits.shardChannels(cluster)).isEqualTo(2 * slots);
			});
			long connections = ShardedWaits.subscribedConnections(cluster, MANY_WAITER);
			System.out.println("[sharded] " + keys.size() + " keys waited on (" + slots + " slots): "
					+ ShardedWaits.shardChannels(cluster) + " shard channels, " + connections
					+ " subscribed connections (3 primaries)");
			assertThat(connections).isBetween(1L, 3L);
			held.forEach(LockHandle::close);
			for (OnThread<Boolean> each : waiters) {
				assertThat(each.get(30)).isTrue();
			}
			// dropped a few seconds after the last waiter of each slot is done
			await().atMost(Duration.ofSeconds(20)).until(() -> ShardedWaits.shardChannels(cluster) == 0);
		}
		finally {
			for (OnThread<Boolean> each : waiters) {
				each.close();
			}
		}
	}

	@Test
	void aShardedNotificationCostsTheClusterBusFewerMessagesThanAClassicOne() throws Exception {
		int notifications = 20;
		long classic = busMessagesPerNotification(NotificationMode.CLASSIC, notifications);
		// Valkey 8 sends pub/sub over the bus as light messages, which CLUSTER INFO does not count by type
		assumeTrue(classic > 0, "CLUSTER INFO counts no cluster_stats_messages_publish_sent");
		long sharded = busMessagesPerNotification(NotificationMode.SHARDED, notifications);
		System.out.println("[sharded] cluster-bus messages per notification, 3 primaries + 3 replicas: classic "
				+ classic / (double) notifications + ", sharded " + sharded / (double) notifications);
		assertThat(sharded).isLessThan(classic);
	}

	/** Releases {@code count} contended locks in a mode (default user); returns the pub/sub bus messages sent. */
	private long busMessagesPerNotification(NotificationMode mode, int count) throws Exception {
		DistributedLockTemplate holder = template(mode, null, null);
		DistributedLockTemplate waiter = template(mode, null, null);
		long before = busMessages();
		for (int i = 0; i < count; i++) {
			String key = "bus:" + UUID.randomUUID();
			if (mode == NotificationMode.SHARDED) {
				wake(holder, waiter, definition(key, LockType.READ, 1), 1, definition(key, LockType.WRITE, 1));
			}
			else {
				StringRedisTemplate redis = new StringRedisTemplate(this.factories.get(this.factories.size() - 1));
				ReleaseWakeups.readerReleaseWakesWriter(holder, waiter, key, redis);
			}
		}
		return busMessages() - before;
	}

	private static long busMessages() {
		return ShardedWaits.clusterStat(cluster, "cluster_stats_messages_publish_sent")
				+ ShardedWaits.clusterStat(cluster, "cluster_stats_messages_publishshard_sent");
	}

	private Duration wake(DistributedLockTemplate holder, DistributedLockTemplate waiter, LockDefinition holding,
			int holds, LockDefinition waiting) throws Exception {
		return ShardedWaits.wakeAfterRelease(cluster, holder, waiter, holding, holds, waiting, () -> {
		}, true);
	}

	private static LockDefinition definition(String key, LockType type, int permits) {
		return LockDefinition.builder(key).type(type).permits(permits).lease(LEASE)
			.acquireTimeout(Duration.ofSeconds(60)).build();
	}

	private DistributedLockTemplate template(NotificationMode mode) {
		return template(mode, USER, PASSWORD);
	}

	private DistributedLockTemplate template(NotificationMode mode, @Nullable String user, @Nullable String password) {
		RedisLockClient client = new RedisLockClient(factory(user, password), "lock:", 0,
				RedisLockClient.DEFAULT_SYNC_TIMEOUT, mode);
		this.clients.add(client);
		return new DistributedLockTemplate(client, LEASE, Duration.ofSeconds(60));
	}

	private LettuceConnectionFactory factory(@Nullable String user, @Nullable String password) {
		return factory(user, password, null);
	}

	private LettuceConnectionFactory factory(@Nullable String user, @Nullable String password,
			@Nullable String clientName) {
		LettuceConnectionFactory factory = ShardedWaits.factory(cluster, user, password, clientName);
		this.factories.add(factory);
		return factory;
	}

}
