package io.github.distributedlock.actuate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.core.ParameterizedTypeReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an operator sees of a Redlock-only application ({@code distributed-lock.store=redlock}, nothing under
 * {@code spring.data.redis}) over HTTP, on a real web server and 3 real {@code redis-server} nodes this class
 * shares: the health is the nodes' (UP with a quorum answering, each node named, DOWN below a quorum), and not that
 * of Spring Boot's default Redis, which holds no locks; the {@code distributedlocks} endpoint lists the held locks,
 * reads one on every node and force-releases it when allowed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedlockActuatorHttpTests {

	private static final ParameterizedTypeReference<Map<String, Object>> JSON = new ParameterizedTypeReference<>() {
	};

	private final List<RedisServer> nodes = new ArrayList<>();

	@BeforeAll
	void startNodes() {
		RedisServer.assumeOnPath();
		for (int i = 0; i < 3; i++) {
			this.nodes.add(RedisServer.start());
		}
	}

	@AfterAll
	void stopNodes() {
		this.nodes.forEach(RedisServer::close);
	}

	@BeforeEach
	void nodesUpAndEmpty() {
		for (RedisServer node : this.nodes) {
			if (!node.isAlive()) {
				node.restart();
			}
			node.admin().flushall();
		}
	}

	private String name(int node) {
		return this.nodes.get(node).host() + ":" + this.nodes.get(node).port();
	}

	@Test
	@SuppressWarnings("unchecked")
	void aRedlockOnlyApplicationIsUpByItsNodesNotBySpringBootsDefaultRedis() {
		try (WebApp app = WebApp.startRedlock(this.nodes)) {
			// asked first, so that a failure never lets the health endpoint ping localhost:6379; Spring Boot names
			// its redis contributor so, blocking or reactive (Lettuce's factory is both)
			assertThat(app.context.containsBean("redisHealthIndicator")).as("Spring Boot's redis indicator").isFalse();
			assertThat(app.context.containsBean("redisHealthContributor")).as("Spring Boot's reactive one").isFalse();
			Map<String, Object> health = app.get("/health");
			assertThat(health).containsEntry("status", "UP");
			assertThat((Map<String, Object>) health.get("components")).containsKey("distributedLock")
				.doesNotContainKey("redis");
			Map<String, Object> details = (Map<String, Object>) app.get("/health/distributedLock").get("details");
			assertThat((Map<String, Object>) details.get("nodes")).containsEntry(name(0), "up")
				.containsEntry(name(1), "up")
				.containsEntry(name(2), "up");
			assertThat(details).containsEntry("quorum", 2).containsEntry("answering", "3 of 3");
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void aMinorityDownStaysUpNamingTheNodeAndAMajorityDownIsDown() {
		try (WebApp app = WebApp.startRedlock(this.nodes)) {
			this.nodes.get(0).kill();
			Map<String, Object> minority = app.get("/health/distributedLock");
			assertThat(minority).containsEntry("status", "UP");
			assertThat((String) ((Map<String, Object>) ((Map<String, Object>) minority.get("details")).get("nodes"))
				.get(name(0))).startsWith("not answering");
			this.nodes.get(1).kill();
			assertThat(app.status("/health/distributedLock")).isEqualTo(503);
			assertThat(app.get("/health/distributedLock")).containsEntry("status", "DOWN");
			this.nodes.get(0).restart();
			this.nodes.get(1).restart();
			Awaitility.await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
				.until(() -> "UP".equals(app.get("/health/distributedLock").get("status")));
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void theEndpointListsAHeldLockAndReadsItOnEveryNode() {
		try (WebApp app = WebApp.startRedlock(this.nodes)) {
			DistributedLockTemplate locks = app.bean(DistributedLockTemplate.class);
			try (LockHandle handle = locks.acquire(LockDefinition.builder("order:42").acquireTimeout(Duration.ofSeconds(10)).build())) {
				Map<String, Object> held = (Map<String, Object>) ((List<Object>) app.get("/distributedlocks")
					.get("locks")).get(0);
				assertThat(held).containsEntry("key", "order:42")
					.containsEntry("type", "reentrant")
					.containsEntry("holdCount", 1)
					.containsEntry("fencingToken", handle.fencingToken())
					.containsEntry("lost", false)
					.containsEntry("permits", 1);
				String owner = (String) held.get("owner");
				Map<String, Object> lock = app.get("/distributedlocks/order:42");
				assertThat(lock).containsEntry("key", "order:42")
					.containsEntry("redisKey", "lock:order:42")
					.containsEntry("type", "reentrant")
					.containsEntry("held", true)
					.containsEntry("owners", List.of(owner))
					.containsEntry("waiting", 0)
					.containsEntry("permits", 1)
					.containsEntry("quorum", 2);
				assertThat(((Number) lock.get("ttlMillis")).longValue()).isBetween(1L, 30_000L);
				List<Map<String, Object>> views = (List<Map<String, Object>>) lock.get("nodes");
				assertThat(views).hasSize(3)
					.allSatisfy((node) -> assertThat(node).containsEntry("state", "held").containsEntry("owner", owner));
				// the token is recorded where a quorum confirmed it (a node that granted late may not have it yet)
				assertThat(views).filteredOn((node) -> ((Number) node.get("fencingToken")).longValue() == handle
					.fencingToken()).hasSizeGreaterThanOrEqualTo(2);
				// refused by default, the lock untouched
				assertThat(app.http.delete().uri("/distributedlocks/order:42").retrieve().toBodilessEntity()
					.getStatusCode().value()).isEqualTo(403);
				assertThat(handle.isLost()).isFalse();
			}
			Awaitility.await().atMost(Duration.ofSeconds(5))
				.until(() -> "none".equals(app.get("/distributedlocks/order:42").get("type")));
			assertThat(app.get("/distributedlocks/order:42")).containsEntry("held", false).containsEntry("permits", 0);
		}
	}

	@Test
	void forceReleaseWithThePropertyFreesEveryNodeAndTheHolderLearnsItLostIt() throws Exception {
		try (WebApp app = WebApp.startRedlock(this.nodes, "distributed-lock.endpoint.force-release-enabled=true")) {
			DistributedLockTemplate locks = app.bean(DistributedLockTemplate.class);
			LockHandle handle = locks.acquire(LockDefinition.builder("job")
				.lease(Duration.ofSeconds(3))
				.acquireTimeout(Duration.ofSeconds(10))
				.build());
			Map<String, Object> released = app.http.delete().uri("/distributedlocks/job").retrieve().body(JSON);
			assertThat(released).containsEntry("released", true);
			for (RedisServer node : this.nodes) {
				assertThat(node.admin().exists("lock:job")).isZero();
			}
			// its next renewal (a third of the lease) finds the key gone on every node
			assertThat(handle.whenLost().toCompletableFuture().get(10, TimeUnit.SECONDS)).isNotNull();
			assertThatThrownBy(handle::close).isInstanceOf(LockLostException.class);
			// a key of another Redis type on one node is no lock of this library: 409, untouched
			this.nodes.get(1).admin().set("lock:foreign", "someone else's");
			assertThat(app.get("/distributedlocks/foreign")).containsEntry("type", "foreign");
			assertThat(app.http.delete().uri("/distributedlocks/foreign").retrieve().toBodilessEntity()
				.getStatusCode().value()).isEqualTo(409);
			assertThat(this.nodes.get(1).admin().get("lock:foreign")).isEqualTo("someone else's");
		}
	}

}
