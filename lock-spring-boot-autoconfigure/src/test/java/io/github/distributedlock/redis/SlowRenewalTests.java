package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * One slow renewal must not delay the renewals of the client's other locks (issue 14, item 5). A lock client
 * renews all its locks from one watchdog, but on a Redis Cluster its locks live on several nodes: one node
 * that answers late (here paused with {@code CLIENT PAUSE}) makes the renewal of the lock it serves hang for
 * the command timeout, while the locks on the other nodes keep coming due. Three primaries without replicas,
 * so the pause fails nothing over.
 */
class SlowRenewalTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	/**
	 * More than a third of the lease on purpose: a watchdog that waited for the hanging renewal before renewing
	 * the others would let their leases run down to about half a second (and run out with a longer timeout).
	 */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final String PREFIX = "lock:";

	private static final List<RedisServer> nodes = new ArrayList<>();

	private static final Map<Integer, RedisServer> byPort = new HashMap<>();

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void startCluster() {
		RedisServer.assumeOnPath();
		List<String> create = new ArrayList<>(List.of("--cluster", "create"));
		for (int i = 0; i < 3; i++) {
			RedisServer node = RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
					"--cluster-node-timeout", "5000");
			nodes.add(node);
			byPort.put(node.port(), node);
			create.add(node.host() + ":" + node.port());
		}
		create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
		nodes.get(0).cli(create.toArray(String[]::new));
		for (RedisServer node : nodes) {
			Awaitility.await()
				.atMost(Duration.ofSeconds(30))
				.until(() -> node.admin().clusterInfo().contains("cluster_state:ok"));
		}
		connectionFactory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(nodes.stream().map((n) -> n.host() + ":" + n.port()).toList()),
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
	}

	@AfterAll
	static void stopCluster() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
		nodes.forEach(RedisServer::close);
	}

	@Test
	void aRenewalHangingOnAPausedNodeDelaysNeitherTheRenewalsNorTheLeasesOfLocksOnOtherNodes() throws Exception {
		// one key on the node to pause, two on each of the other two
		RedisServer paused = null;
		String slowKey = null;
		Map<String, RedisServer> otherKeys = new LinkedHashMap<>();
		Map<RedisServer, Integer> perNode = new HashMap<>();
		try (RedisClusterConnection cluster = connectionFactory.getClusterConnection()) {
			while (slowKey == null || otherKeys.size() < 4) {
				String key = "slow-renewal:" + UUID.randomUUID();
				RedisClusterNode primary = cluster
					.clusterGetNodeForKey((PREFIX + key).getBytes(StandardCharsets.UTF_8));
				RedisServer node = byPort.get(primary.getPort());
				if (paused == null) {
					paused = node;
					slowKey = key;
				}
				else if (node != paused && perNode.merge(node, 1, Integer::sum) <= 2) {
					otherKeys.put(key, node);
				}
			}
		}
		try (RedisLockClient client = new RedisLockClient(connectionFactory, PREFIX)) {
			List<LockHandle> others = new ArrayList<>();
			for (String key : otherKeys.keySet()) {
				others.add(acquire(client, key));
			}
			String first = otherKeys.keySet().iterator().next();
			// half a renewal period later, so that the slow lock comes due between the others' renewals, not with
			// them (holds due at the same moment share one pipeline)
			await().atMost(Duration.ofSeconds(2))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> remainingLease(otherKeys, first) <= LEASE.toMillis() * 5 / 6);
			LockHandle slow = acquire(client, slowKey);
			// its renewal, due in a second, hangs for the command timeout; the pause outlasts both
			paused.admin().clientPause(LEASE.plusSeconds(1).toMillis());
			long pausedAt = System.nanoTime();

			// meanwhile the locks on the other nodes are renewed every third of their lease, as always: what is left
			// of their lease stays around two thirds of it (a renewal held up by the hanging one would let it fall
			// to about half a second)
			AtomicLong lowest = new AtomicLong(Long.MAX_VALUE);
			await("every lock on the other nodes keeping at least half its lease").during(LEASE)
				.atMost(LEASE.plusSeconds(2))
				.pollInterval(Duration.ofMillis(25))
				.untilAsserted(() -> {
					for (String key : otherKeys.keySet()) {
						lowest.accumulateAndGet(remainingLease(otherKeys, key), Math::min);
					}
					assertThat(lowest.get()).as("least lease left (ms) of a lock on another node")
						.isGreaterThanOrEqualTo(LEASE.toMillis() / 2);
				});
			// the slow renewal did hang: it failed past the slow lock's lease, so that lock is lost
			await("the slow lock lost").atMost(Duration.ofSeconds(5)).until(slow::isLost);
			System.out.println("[slow renewal] one renewal hung for the " + COMMAND_TIMEOUT.toMillis()
					+ " ms command timeout on a paused node; the locks on the other nodes kept at least " + lowest.get()
					+ " ms of their " + LEASE.toMillis() + " ms lease over the " + LEASE.toMillis()
					+ " ms watched; slow lock lost after "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt) + " ms");
			for (LockHandle other : others) {
				assertThat(other.isLost()).isFalse();
				other.close();
			}
			assertThatThrownBy(slow::close).isInstanceOf(LockLostException.class);
			for (String key : otherKeys.keySet()) {
				assertThat(otherKeys.get(key).admin().exists(PREFIX + key)).isZero();
			}
		}
	}

	private static LockHandle acquire(RedisLockClient client, String key) throws InterruptedException {
		LockHandle handle = client.acquire(LockRequest.builder(key).lease(LEASE).interruptible(false).build());
		assertThat(handle).as(key).isNotNull();
		return handle;
	}

	/** What is left of a lock's lease in Redis, in ms, read from its own node. */
	private static long remainingLease(Map<String, RedisServer> keys, String key) {
		return keys.get(key).admin().pttl(PREFIX + key);
	}

}
