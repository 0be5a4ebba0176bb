package io.github.distributedlock.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.fencing.FencedRedis;
import io.github.distributedlock.fencing.StaleFencingTokenException;
import io.github.distributedlock.test.OnThread;
import io.github.distributedlock.test.RedisClientLibrary;
import io.github.distributedlock.test.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Locks on a real three-node Redis Cluster: every script touches one key (one hash slot), and release
 * notifications reach waiters whatever node the lock lives on.
 */
class RedisClusterTests {

	private static final List<RedisServer> nodes = new ArrayList<>();

	private static final List<String> nodeAddresses = new ArrayList<>();

	private RedisConnectionFactory connectionFactory;

	@BeforeAll
	static void startCluster() throws Exception {
		assumeTrue(onPath("redis-cli"), "redis-cli (Debian package redis-tools) forms the cluster");
		List<String> addresses = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			RedisServer node = RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
					"--cluster-node-timeout", "2000");
			nodes.add(node);
			addresses.add(node.host() + ":" + node.port());
		}
		List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
		create.addAll(addresses);
		create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
		Process process = new ProcessBuilder(create).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes());
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
		nodeAddresses.addAll(addresses);
		for (RedisServer node : nodes) {
			Awaitility.await()
				.atMost(Duration.ofSeconds(30))
				.until(() -> clusterInfo(node).contains("cluster_state:ok"));
		}
	}

	private static String clusterInfo(RedisServer node) throws IOException, InterruptedException {
		Process info = new ProcessBuilder("redis-cli", "-h", node.host(), "-p", Integer.toString(node.port()), "cluster",
				"info")
			.redirectErrorStream(true)
			.start();
		String output = new String(info.getInputStream().readAllBytes());
		info.waitFor(10, TimeUnit.SECONDS);
		return output;
	}

	@AfterAll
	static void stopCluster() {
		nodes.forEach(RedisServer::close);
		// shared with the subclasses, which start a cluster of their own
		nodes.clear();
		nodeAddresses.clear();
	}

	/**
	 * The Redis client library of the lock clients under test: a subclass that returns another runs these tests
	 * on that one.
	 */
	RedisClientLibrary clientLibrary() {
		return RedisClientLibrary.LETTUCE;
	}

	@BeforeEach
	void connect() {
		this.connectionFactory = clientLibrary().connectToCluster(nodeAddresses);
	}

	@AfterEach
	void disconnect() {
		RedisClientLibrary.destroy(this.connectionFactory);
	}

	@Test
	void reentrantAndReadWriteLocksWorkOnKeysOfEveryNode() throws Exception {
		try (RedisLockClient first = new RedisLockClient(this.connectionFactory, "lock:");
				RedisLockClient second = new RedisLockClient(this.connectionFactory, "lock:")) {
			DistributedLockTemplate a = new DistributedLockTemplate(first, Duration.ofSeconds(30), Duration.ofSeconds(10));
			DistributedLockTemplate b = new DistributedLockTemplate(second, Duration.ofSeconds(30), Duration.ofSeconds(10));
			StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
			// sharded on Redis 7.0+ and Valkey with Lettuce; classic on Redis 6.2 (.ci/older-servers) and with Jedis
			assertThat(first.getNotificationMode()).isEqualTo(expectedNotifications());
			// twenty keys land in slots of all three nodes
			for (int i = 0; i < 20; i++) {
				String key = "cluster:" + UUID.randomUUID();
				assertThat(a.execute(key, () -> a.execute(key, () -> redis.hasKey("lock:" + key)))).isTrue();
				assertThat(redis.hasKey("lock:" + key)).isFalse();
				assertThat(ReleaseWakeups.readerReleaseWakesWriter(a, b, key, redis)).isLessThan(Duration.ofSeconds(3));
				assertThat(redis.hasKey("lock:" + key)).isFalse();
			}
		}
	}

	/**
	 * Issue 28: a key whose braces make no hash tag ({@code a{}b}, {@code a}b}) is hashed whole, and its token
	 * key lands in its slot too: a fenced write of it is one script, not refused with CROSSSLOT (as it was when
	 * the token key quoted the key in braces).
	 */
	@Test
	void fencedWritesOfKeysWhoseBracesMakeNoHashTagStayInTheirSlot() {
		FencedRedis fenced = new FencedRedis(this.connectionFactory);
		StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
		for (String shape : List.of("a{}b", "a}b", "}{", "a{b")) {
			String key = "fence:" + UUID.randomUUID() + ":" + shape;
			fenced.set(key, "first", 2);
			assertThatThrownBy(() -> fenced.set(key, "late", 1)).isInstanceOf(StaleFencingTokenException.class);
			assertThat(redis.opsForValue().get(key)).isEqualTo("first");
			redis.delete(key);
			redis.delete(FencedRedis.fencingTokenKey(key));
		}
	}

	@Test
	void aSemaphoreAdmitsItsPermitsAndGrantsAReleasedOneToAWaiterOnKeysOfEveryNode() throws Exception {
		try (RedisLockClient first = new RedisLockClient(this.connectionFactory, "lock:");
				RedisLockClient second = new RedisLockClient(this.connectionFactory, "lock:");
				RedisLockClient third = new RedisLockClient(this.connectionFactory, "lock:")) {
			DistributedLockTemplate a = new DistributedLockTemplate(first, Duration.ofSeconds(30), Duration.ofSeconds(10));
			DistributedLockTemplate b = new DistributedLockTemplate(second, Duration.ofSeconds(30), Duration.ofSeconds(10));
			DistributedLockTemplate c = new DistributedLockTemplate(third, Duration.ofSeconds(30), Duration.ofSeconds(10));
			StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
			// eight keys land in slots of all three nodes
			for (int i = 0; i < 8; i++) {
				String key = "cluster-sem:" + UUID.randomUUID();
				LockDefinition semaphore = LockDefinition.builder(key).permits(2).build();
				LockDefinition tryOnce = LockDefinition.builder(key).permits(2).acquireTimeout(Duration.ZERO).build();
				// with the acquire timeout: a new client's first command may wait for the cluster connection
				LockHandle firstPermit = a.acquire(semaphore);
				LockHandle secondPermit = b.acquire(semaphore);
				assertThat(c.tryAcquire(tryOnce)).isEmpty();
				try (OnThread<LockHandle> waiter = OnThread.start("waiter",
						() -> c.acquire(semaphore))) {
					Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> redis.opsForHash().keys("lock:" + key)
						.stream().anyMatch((field) -> field.toString().startsWith("q:")));
					long released = System.nanoTime();
					firstPermit.close();
					LockHandle granted = waiter.get(10);
					assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(3));
					assertThat(granted.fencingToken()).isGreaterThan(secondPermit.fencingToken());
					granted.close();
				}
				secondPermit.close();
				assertThat(redis.hasKey("lock:" + key)).isFalse();
			}
		}
	}

	private NotificationMode expectedNotifications() {
		String info = nodes.get(0).admin().info("server");
		int major = Integer.parseInt(info.substring(info.indexOf("redis_version:") + 14).split("\\.")[0]);
		return (clientLibrary() == RedisClientLibrary.LETTUCE && major >= 7) ? NotificationMode.SHARDED
				: NotificationMode.CLASSIC;
	}

	private static boolean onPath(String command) {
		try {
			return new ProcessBuilder("sh", "-c", "command -v " + command).start().waitFor() == 0;
		}
		catch (IOException | InterruptedException ex) {
			return false;
		}
	}

}
