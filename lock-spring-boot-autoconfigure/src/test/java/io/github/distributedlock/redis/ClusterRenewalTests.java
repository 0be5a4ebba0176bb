package io.github.distributedlock.redis;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.ClusterTopology;
import io.github.distributedlock.test.RedisClientLibrary;
import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The watchdog renews every kind of lock on a Redis Cluster, whichever client library, and whatever the JVM's
 * default charset (issue 18, items 3 and 4): renewal batches group reentrant locks by hash slot, computed from
 * the bytes that are sent; read/write renewals on Jedis, whose cluster connection has no pipeline, go one by
 * one. One cluster for the class.
 */
class ClusterRenewalTests {

	/** Two keys outside ASCII of different slots (5502 and 15001) that are one key, {@code user:??}, in ASCII. */
	private static final List<String> NON_ASCII_KEYS = List.of("user:张三", "user:李四");

	private static ClusterTopology cluster;

	@BeforeAll
	static void startCluster() {
		cluster = ClusterTopology.start();
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@Test
	void slotsAreThoseOfTheUtf8BytesAsClusterKeyslotSays() {
		RedisServer node = cluster.servers().get(0);
		for (String key : List.of("lock:user:张三", "lock:user:李四", "lock:{订单}:42", "lock:café", "lock:ascii",
				"lock:", "")) {
			assertThat(ClusterSlots.of(key)).as(key).isEqualTo((int) (long) node.admin().clusterKeyslot(key));
		}
	}

	@Test
	void locksWithKeysOutsideAsciiAreRenewedUnderAPosixLocale() throws Exception {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		List<String> command = new ArrayList<>(List.of(java, "-Dfile.encoding=ANSI_X3.4-1968",
				"-Dsun.jnu.encoding=ANSI_X3.4-1968", "-cp", System.getProperty("java.class.path"),
				ClusterRenewalMain.class.getName(), cluster.nodes(), "3000", "8000"));
		for (String key : NON_ASCII_KEYS) {
			command.add(HexFormat.of().formatHex(key.getBytes(StandardCharsets.UTF_8)));
		}
		// a 3 s lease held for 8 s: only renewals keep the locks, and a renewal has seconds to come back on a loaded
		// machine (a 1.5 s lease was once lost there to a renewal that merely came back late, not refused)
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		Map<String, String> env = builder.environment();
		env.put("LC_ALL", "C");
		env.put("LANG", "C");
		Process child = builder.start();
		String output;
		try {
			output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			child.destroyForcibly();
		}
		System.out.println("The child JVM printed:\n" + output);
		List<String> lines = output.lines().toList();
		assertThat(lines).as(output).contains("CHARSET US-ASCII");
		assertThat(lines).as(output).contains("HELD 0", "HELD 1");
		// one batch for both keys, refused by Redis (a renewal that merely timed out on a loaded machine would
		// be retried, and is not what this test is about)
		assertThat(output).doesNotContain("CROSSSLOT");
	}

	/**
	 * An empty Redis key (no key prefix, an empty lock key through the client) once made the slot computation
	 * throw inside the watchdog: its batch then stayed "being renewed" for ever, neither renewed nor reported
	 * lost, while its leases ran out in Redis.
	 */
	@Test
	void aBatchWithAnEmptyKeyIsRenewed() throws Exception {
		RedisConnectionFactory factory = RedisClientLibrary.LETTUCE.connectToCluster(List.of(cluster.nodes().split(",")));
		String other = "empty-key-batch:" + UUID.randomUUID();
		try (RedisLockClient client = new RedisLockClient(factory, "")) {
			List<LockHandle> held = new ArrayList<>();
			for (String key : List.of("", other)) {
				held.add(client.acquire(LockRequest.builder(key).lease(Duration.ofMillis(900)).interruptible(false)
						.build()));
			}
			StringRedisTemplate redis = new StringRedisTemplate(factory);
			// several leases long: only renewals keep them
			await().pollDelay(Duration.ofMillis(3000)).atMost(Duration.ofSeconds(10)).until(() -> true);
			assertThat(held).doesNotContainNull().noneMatch(LockHandle::isLost);
			assertThat(redis.hasKey("")).as("the empty key's lock, still in Redis").isTrue();
			assertThat(redis.hasKey(other)).isTrue();
			held.forEach(LockHandle::close);
			assertThat(redis.hasKey("")).isFalse();
		}
		finally {
			RedisClientLibrary.destroy(factory);
		}
	}

	@ParameterizedTest
	@EnumSource(RedisClientLibrary.class)
	void everyLockTypeIsRenewedOnTheCluster(RedisClientLibrary library) {
		RedisConnectionFactory factory = library.connectToCluster(List.of(cluster.nodes().split(",")));
		AtomicInteger failures = new AtomicInteger();
		try (RedisLockClient client = new RedisLockClient(factory, "lock:")) {
			client.setLockObserver(new LockObserver() {
				@Override
				public void renewalFailed(String key, LockType type) {
					failures.incrementAndGet();
				}
			});
			DistributedLockTemplate locks = new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ZERO);
			List<LockHandle> held = new ArrayList<>();
			for (LockType type : LockType.values()) {
				for (int i = 0; i < 4; i++) {
					held.add(locks.acquire(LockDefinition.builder("cluster-renewal:" + UUID.randomUUID())
						.type(type)
						.lease(Duration.ofMillis(900))
						.build()));
				}
			}
			// several leases long: only renewals keep them
			await().pollDelay(Duration.ofMillis(3000)).atMost(Duration.ofSeconds(10)).until(() -> true);
			assertThat(held).as("%d renewals failed", failures.get()).noneMatch(LockHandle::isLost);
			held.forEach(LockHandle::close);
		}
		finally {
			RedisClientLibrary.destroy(factory);
		}
	}

}
