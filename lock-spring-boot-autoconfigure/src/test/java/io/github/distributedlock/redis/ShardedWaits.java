package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.ClusterTopology;
import io.github.distributedlock.test.OnThread;
import io.github.distributedlock.test.RedisServer;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A waiter on one instance, a holder on another, on a Redis Cluster with sharded notifications: how soon the
 * waiter has the lock after the holder's release. The holder's lease is long, and the release comes only once the
 * waiter's sharded subscription has stood for a while: only a notification brings the waiter in quickly.
 */
final class ShardedWaits {

	/** How long the waiter's state must stay as it is before the release: its subscription's own wake-up is over. */
	private static final Duration SETTLED = Duration.ofMillis(300);

	private ShardedWaits() {
	}

	/**
	 * Holds {@code holds} acquisitions of {@code holding} on {@code holder}, lets {@code waiter} wait for
	 * {@code waiting}, optionally disturbs the cluster while it waits, releases, and returns how long the waiter
	 * took to get it after the release. Exclusion is checked: the waiter gets the lock only after the release.
	 * @param cluster the cluster
	 * @param holder the holding instance
	 * @param waiter the waiting instance; its client must be a {@link RedisLockClient}
	 * @param holding what the holder acquires, {@code holds} times, each as an owner of its own (a semaphore's
	 * permits: all of them)
	 * @param waiting what the waiter acquires
	 * @param whileWaiting run while the waiter waits, before the release (a resharding, a failover)
	 * @param resubscribed whether to release only once the waiter is subscribed again after {@code whileWaiting}
	 * (else at once: its subscription's own wake-up may then be what brings it in)
	 * @return the time from the release to the waiter's acquisition
	 * @throws Exception if the waiter did not get the lock within 30 s of the release
	 */
	static Duration wakeAfterRelease(ClusterTopology cluster, DistributedLockTemplate holder,
			DistributedLockTemplate waiter, LockDefinition holding, int holds, LockDefinition waiting,
			Runnable whileWaiting, boolean resubscribed) throws Exception {
		List<LockHandle> held = new ArrayList<>();
		for (int i = 0; i < holds; i++) {
			// each on a thread of its own: one owner per permit
			try (OnThread<LockHandle> acquires = OnThread.start("sharded-holder-" + i, () -> holder.acquire(holding))) {
				held.add(acquires.get(30));
			}
		}
		RedisLockClient waiterClient = (RedisLockClient) waiter.getClient();
		String redisKey = waiterClient.redisKey(waiting.key());
		AtomicLong releasedAt = new AtomicLong(Long.MAX_VALUE);
		try (OnThread<Long> waits = OnThread.start("sharded-waiter", () -> {
			try (LockHandle handle = waiter.acquire(waiting)) {
				long acquiredAt = System.nanoTime();
				assertThat(acquiredAt).as("acquired only after the release").isGreaterThan(releasedAt.get());
				return acquiredAt;
			}
		})) {
			awaitSubscribed(cluster, waiterClient, redisKey);
			whileWaiting.run();
			if (resubscribed) {
				awaitSubscribed(cluster, waiterClient, redisKey);
			}
			releasedAt.set(System.nanoTime());
			for (LockHandle handle : held) {
				handle.close();
			}
			long acquiredAt = waits.get(30);
			return Duration.ofNanos(acquiredAt - releasedAt.get());
		}
	}

	/**
	 * Waits until the waiter waits on the key and is subscribed to the key's sharded release channel on the
	 * primary that owns it, and stays so for {@link #SETTLED}.
	 */
	static void awaitSubscribed(ClusterTopology cluster, RedisLockClient waiterClient, String redisKey) {
		String channel = waiterClient.channels().of(redisKey);
		Awaitility.await("waiter subscribed to " + channel)
			.atMost(Duration.ofSeconds(30))
			.during(SETTLED)
			.ignoreExceptions()
			.until(() -> ClientProbe.of(waiterClient).waitingKeys() == 1 && subscribers(cluster.primaryOf(redisKey), channel) >= 1);
	}

	/**
	 * Returns how many clients a node has subscribed to a shard channel.
	 * @param node the node
	 * @param channel the channel
	 * @return {@code PUBSUB SHARDNUMSUB} of it
	 */
	static long subscribers(RedisServer node, String channel) {
		Map<String, Long> numsub = node.admin().pubsubShardNumsub(channel);
		return numsub.getOrDefault(channel, 0L);
	}

	/**
	 * Counts the shard channels subscribed to on the running primaries.
	 * @param cluster the cluster
	 * @return the sum of {@code PUBSUB SHARDCHANNELS} over them
	 */
	static long shardChannels(ClusterTopology cluster) {
		return cluster.primaries().stream().mapToLong((node) -> node.admin().pubsubShardChannels().size()).sum();
	}

	/**
	 * Counts the connections with a client name that have shard channel subscriptions, on every running node.
	 * @param cluster the cluster
	 * @param clientName the client name
	 * @return how many lines of {@code CLIENT LIST} have that name and {@code ssub} above 0
	 */
	static long subscribedConnections(ClusterTopology cluster, String clientName) {
		long count = 0;
		for (RedisServer node : cluster.servers()) {
			if (node.isAlive()) {
				count += node.admin().clientList().lines()
					.filter((line) -> line.contains(" name=" + clientName + " ") && !line.contains(" ssub=0 "))
					.count();
			}
		}
		return count;
	}

	/**
	 * Creates a started Lettuce factory for the cluster, with the periodic topology refresh docs/faults.md
	 * recommends and a 2 s command timeout.
	 * @param cluster the cluster
	 * @param user the ACL user, or {@code null} for the default user
	 * @param password its password
	 * @param clientName the connections' client name, or {@code null}
	 * @return the factory; the caller destroys it
	 */
	static LettuceConnectionFactory factory(ClusterTopology cluster, @Nullable String user, @Nullable String password,
			@Nullable String clientName) {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration(List.of(cluster.nodes().split(",")));
		if (user != null) {
			configuration.setUsername(user);
			configuration.setPassword(password);
		}
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(Duration.ofSeconds(1))
			.enableAllAdaptiveRefreshTriggers()
			.build();
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(2))
			.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build());
		if (clientName != null) {
			client.clientName(clientName);
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Sums a field of {@code CLUSTER INFO} over the running nodes.
	 * @param cluster the cluster
	 * @param field such as {@code cluster_stats_messages_publish_sent}
	 * @return the sum; 0 where a node has no such field
	 */
	static long clusterStat(ClusterTopology cluster, String field) {
		long sum = 0;
		for (RedisServer node : cluster.servers()) {
			if (node.isAlive()) {
				for (String line : node.admin().clusterInfo().split("\r?\n")) {
					if (line.startsWith(field + ":")) {
						sum += Long.parseLong(line.substring(field.length() + 1).trim());
					}
				}
			}
		}
		return sum;
	}

	/**
	 * The waiters were woken by notifications, not by their timed tries, which come every second
	 * ({@link WaitingAcquirer#RETRY_NANOS}; a release at a random moment then reaches its waiter after 500 ms in the
	 * median): the median wake-up is well under that, and none took longer than a retry and a margin.
	 * @param wakeups the times from releases to their waiters' acquisitions
	 */
	static void assertWokenByNotification(List<Duration> wakeups) {
		List<Duration> sorted = wakeups.stream().sorted().toList();
		assertThat(sorted.get(sorted.size() / 2)).as("median of " + sorted).isLessThan(Duration.ofMillis(250));
		assertThat(sorted).allSatisfy((wakeup) -> assertThat(wakeup).isLessThan(Duration.ofSeconds(3)));
	}

	/**
	 * Nothing of the locks was refused. Lettuce also sends {@code INFO} and {@code CLIENT SETNAME} (its topology
	 * refresh) and {@code CLIENT SETINFO} (to Valkey), which the rule leaves out and Lettuce does without
	 * (docs/managed-redis.md).
	 * @param cluster the cluster, whose running nodes' ACL LOG is read
	 */
	static void assertNothingRefused(ClusterTopology cluster) {
		for (RedisServer node : cluster.servers()) {
			if (node.isAlive()) {
				assertThat(node.admin().aclLog())
					.filteredOn((entry) -> !List.of("info", "client|setname", "client|setinfo").contains(entry.get("object")))
					.as("ACL LOG of port " + node.port())
					.isEmpty();
			}
		}
	}

}
