package io.github.distributedlock.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.test.FrozenProcess;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.ReplicatedRedis;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Replica sync on a real Redis Cluster of three primaries with a replica each: the WAIT goes to the primary
 * that owns the lock's slot, so a frozen replica holds up the locks of its primary only.
 */
class ReplicaSyncClusterTests {

	private static final List<RedisServer> nodes = new ArrayList<>();

	/** A standalone template on each node, by port. */
	private static final Map<Integer, StringRedisTemplate> byPort = new HashMap<>();

	private static final List<LettuceConnectionFactory> nodeFactories = new ArrayList<>();

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void startCluster() throws Exception {
		assumeTrue(new ProcessBuilder("sh", "-c", "command -v redis-cli").start().waitFor() == 0,
				"redis-cli (Debian package redis-tools) forms the cluster");
		List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
		for (int i = 0; i < 6; i++) {
			RedisServer node = RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
					"--cluster-node-timeout", "5000");
			nodes.add(node);
			LettuceConnectionFactory factory = node.connectionFactory();
			nodeFactories.add(factory);
			byPort.put(node.port(), new StringRedisTemplate(factory));
			create.add(node.host() + ":" + node.port());
		}
		create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
		Process process = new ProcessBuilder(create).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
		for (StringRedisTemplate node : byPort.values()) {
			Awaitility.await()
				.atMost(Duration.ofSeconds(30))
				.until(() -> clusterInfo(node).contains("cluster_state:ok"));
			if ("slave".equals(FrozenProcess.info(node, "replication", "role"))) {
				ReplicatedRedis.awaitInSync(node);
			}
		}
		connectionFactory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(nodes.stream().map((n) -> n.host() + ":" + n.port()).toList()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
	}

	private static String clusterInfo(StringRedisTemplate node) {
		return node.execute((RedisCallback<String>) (connection) -> new String(
				(byte[]) connection.execute("CLUSTER", "INFO".getBytes(StandardCharsets.US_ASCII)), StandardCharsets.UTF_8));
	}

	@AfterAll
	static void stopCluster() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
		nodeFactories.forEach(LettuceConnectionFactory::destroy);
		nodes.forEach(RedisServer::close);
	}

	@Test
	void aFrozenReplicaHoldsUpTheLocksOfItsOwnPrimaryOnly() throws IOException {
		try (RedisLockClient client = new RedisLockClient(connectionFactory, "lock:", 1, Duration.ofMillis(100));
				RedisClusterConnection cluster = connectionFactory.getClusterConnection()) {
			// patient while the replicas are up (the first sync connects to the cluster), brief while one is frozen
			DistributedLockTemplate patient = new DistributedLockTemplate(client, Duration.ofSeconds(30),
					Duration.ofSeconds(10));
			DistributedLockTemplate brief = new DistributedLockTemplate(client, Duration.ofSeconds(30),
					Duration.ofMillis(400));
			// keys until three of them live on one primary and three on the others
			RedisClusterNode frozenPrimary = null;
			List<String> onFrozenPrimary = new ArrayList<>();
			List<String> elsewhere = new ArrayList<>();
			while (onFrozenPrimary.size() < 3 || elsewhere.size() < 3) {
				String key = "sync:" + UUID.randomUUID();
				RedisClusterNode primary = cluster.clusterGetNodeForKey(("lock:" + key).getBytes(StandardCharsets.UTF_8));
				if (frozenPrimary == null) {
					frozenPrimary = primary;
				}
				(primary.equals(frozenPrimary) ? onFrozenPrimary : elsewhere).add(key);
			}
			for (String key : onFrozenPrimary) {
				assertThat(patient.execute(key, () -> "synced")).isEqualTo("synced");
			}
			RedisClusterNode replica = cluster.clusterGetReplicas(frozenPrimary).iterator().next();
			try (FrozenProcess frozen = FrozenProcess.freeze(byPort.get(replica.getPort()))) {
				for (String key : onFrozenPrimary) {
					assertThatThrownBy(() -> brief.execute(key, () -> "unsynced"))
						.isInstanceOf(LockAcquisitionException.class);
				}
				for (String key : elsewhere) {
					assertThat(patient.execute(key, () -> "synced")).isEqualTo("synced");
				}
			}
			assertThat(patient.execute(onFrozenPrimary.get(0), () -> "synced again")).isEqualTo("synced again");
		}
	}

}
