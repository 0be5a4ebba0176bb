package io.github.distributedlock.actuate;

import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.Owners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostEvent;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Metrics, the lost-lock event and the {@code distributedlocks} endpoint of an application with Actuator on a
 * real web server, called over HTTP, on a real Redis. Another instance of the application is a second
 * {@link RedisLockClient} on the same Redis. Each test uses lock names of its own.
 */
@ExtendWith(OutputCaptureExtension.class)
class ObservabilityHttpTests {

	private static final RedisServer server = SharedRedis.server();

	private static WebApp app;

	private static DistributedLockTemplate locks;

	private static RedisLockClient otherInstance;

	@BeforeAll
	static void start() {
		app = WebApp.start(server);
		locks = app.bean(DistributedLockTemplate.class);
		otherInstance = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
	}

	@AfterAll
	static void stop() {
		otherInstance.close();
		app.close();
	}

	private static String name() {
		return "n" + UUID.randomUUID().toString().substring(0, 8);
	}

	@Test
	void metersCountAcquisitionsATimeoutAndALoss() throws Exception {
		String name = name();
		for (int i = 0; i < 3; i++) {
			locks.execute(name + ":" + i, () -> null);
		}
		try (LockHandle other = otherInstance.acquire(LockRequest.builder(name + ":busy").lease(Duration.ofSeconds(30))
				.build())) {
			assertThat(other).isNotNull();
			assertThat(locks.tryAcquire(LockDefinition.builder(name + ":busy").acquireTimeout(Duration.ZERO).build()))
				.isEmpty();
		}
		LockHandle lost = locks.acquire(LockDefinition.builder(name + ":lost").lease(Duration.ofMillis(600)).build());
		SharedRedis.redis().delete("lock:" + name + ":lost");
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> app.meter("distributed.lock.lost", "lock:" + name) == 1);
		assertThatThrownBy(lost::close).isInstanceOf(LockLostException.class);

		assertThat(app.meter("distributed.lock.acquire", "lock:" + name, "outcome:acquired", "type:reentrant"))
			.isEqualTo(4);
		assertThat(app.meter("distributed.lock.acquire", "lock:" + name, "outcome:timeout")).isEqualTo(1);
		assertThat(app.meter("distributed.lock.held", "lock:" + name, "outcome:released")).isEqualTo(3);
		assertThat(app.meter("distributed.lock.held", "lock:" + name, "outcome:lost")).isEqualTo(1);
		assertThat(app.meter("distributed.lock.lost", "lock:" + name, "type:reentrant")).isEqualTo(1);
	}

	@Test
	@SuppressWarnings("unchecked")
	void hundredsOfKeysOfOneLockMakeOneLockTagValue() throws Exception {
		String name = name();
		for (int i = 0; i < 300; i++) {
			locks.execute(name + ":" + UUID.randomUUID(), () -> null);
		}
		assertThat(app.meter("distributed.lock.acquire", "lock:" + name)).isEqualTo(300);
		Map<String, Object> acquire = app.get("/metrics/distributed.lock.acquire");
		List<Map<String, Object>> tags = (List<Map<String, Object>>) acquire.get("availableTags");
		List<String> lockValues = tags.stream()
			.filter((tag) -> tag.get("tag").equals("lock"))
			.flatMap((tag) -> ((List<String>) tag.get("values")).stream())
			.filter((value) -> value.startsWith(name))
			.toList();
		assertThat(lockValues).containsExactly(name);
		assertThat(app.meter("distributed.lock.held", "lock:" + name)).isEqualTo(300);
	}

	@Test
	void activeFollowsTheHeldCount() {
		String name = name();
		double before = app.meter("distributed.lock.active");
		List<LockHandle> handles = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			handles.add(locks.acquire(LockDefinition.of(name + ":" + i)));
		}
		assertThat(app.meter("distributed.lock.active")).isEqualTo(before + 3);
		handles.remove(0).close();
		assertThat(app.meter("distributed.lock.active")).isEqualTo(before + 2);
		// a re-entry is not one more lock held
		try (LockHandle again = locks.acquire(LockDefinition.of(name + ":1"))) {
			assertThat(app.meter("distributed.lock.active")).isEqualTo(before + 2);
		}
		handles.forEach(LockHandle::close);
		assertThat(app.meter("distributed.lock.active")).isEqualTo(before);
	}

	@Test
	@SuppressWarnings("unchecked")
	void theEndpointListsThisInstancesLocks() {
		String key = name() + ":42";
		try (LockHandle handle = locks.acquire(LockDefinition.builder(key).lease(Duration.ofSeconds(20)).build());
				LockHandle reentry = locks.acquire(LockDefinition.of(key))) {
			Map<String, Object> body = app.get("/distributedlocks");
			assertThat(body.get("clientId")).isEqualTo(app.bean(RedisLockClient.class).getClientId());
			Map<String, Object> lock = ((List<Map<String, Object>>) body.get("locks")).stream()
				.filter((l) -> l.get("key").equals(key))
				.findFirst()
				.orElseThrow();
			assertThat(lock).containsOnlyKeys("key", "type", "owner", "holdCount", "fencingToken", "heldSince",
					"leaseMillis", "autoRenew", "lost", "permits");
			System.out.println("GET /distributedlocks: " + body);
			assertThat(lock).containsEntry("type", "reentrant")
				.containsEntry("permits", 1)
				.containsEntry("holdCount", 2)
				.containsEntry("fencingToken", handle.fencingToken())
				.containsEntry("leaseMillis", 20_000)
				.containsEntry("autoRenew", true)
				.containsEntry("lost", false);
			assertThat((String) lock.get("heldSince")).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
		}
		Map<String, Object> after = app.get("/distributedlocks");
		assertThat((List<Map<String, Object>>) after.get("locks")).noneMatch((l) -> l.get("key").equals(key));
	}

	@Test
	@SuppressWarnings("unchecked")
	void theEndpointInspectsALockHeldByAnotherInstanceWithItsOwnerTtlAndWaiters() throws Exception {
		String key = name() + ":7";
		CountDownLatch waiting = new CountDownLatch(1);
		AtomicReference<Boolean> waiterGotIt = new AtomicReference<>();
		Thread waiter;
		try (LockHandle other = otherInstance.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(20)).build())) {
			assertThat(other).isNotNull();
			Map<String, Object> lock = app.get("/distributedlocks/" + key);
			assertThat(lock).containsEntry("key", key)
				.containsEntry("held", true)
				.containsEntry("type", "reentrant")
				.containsEntry("owners", List.of(Owners.current(otherInstance)))
				.containsEntry("waiting", 0)
				.containsEntry("permits", 1);
			// every field docs/observability.md shows, and no other
			assertThat(lock).containsOnlyKeys("key", "redisKey", "type", "held", "ttlMillis", "owners", "waiting",
					"holders", "permits");
			System.out.println("GET /distributedlocks/" + key + ": " + lock);
			assertThat(((Number) lock.get("ttlMillis")).longValue()).isBetween(1L, 20_000L);
			assertThat(lock.get("holders")).asList().singleElement().satisfies((holder) -> assertThat(
					(Map<String, Object>) holder).containsOnlyKeys("owner", "leaseMillis")
						.containsEntry("owner", Owners.current(otherInstance)));
			// this instance waits for it: one waiter queued in Redis
			waiter = new Thread(() -> {
				waiting.countDown();
				try (LockHandle mine = locks.acquire(LockDefinition.builder(key).acquireTimeout(Duration.ofSeconds(30)).build())) {
					waiterGotIt.set(true);
				}
			});
			waiter.start();
			waiting.await();
			Awaitility.await().atMost(Duration.ofSeconds(10))
				.until(() -> ((Number) app.get("/distributedlocks/" + key).get("waiting")).intValue() == 1);
		}
		waiter.join(10_000);
		assertThat(waiterGotIt.get()).isTrue();
		assertThat(app.get("/distributedlocks/" + key)).containsEntry("held", false).containsEntry("type", "none");
	}

	@Test
	void theEndpointInspectsReadersOfAReadWriteLock() {
		String key = name();
		try (LockHandle mine = locks.acquire(LockDefinition.builder(key).type(LockType.READ).build());
				LockHandle other = acquireOnOtherInstance(key, LockType.READ)) {
			Map<String, Object> lock = app.get("/distributedlocks/" + key);
			assertThat(lock).containsEntry("type", "read-write").containsEntry("held", true);
			assertThat(lock.get("owners")).asList()
				.containsExactlyInAnyOrder(mineOwner(), Owners.current(otherInstance));
		}
	}

	@Test
	void forceReleaseIsRefusedByDefaultAndTheLockIsUntouched() {
		String key = name();
		try (LockHandle other = acquireOnOtherInstance(key, LockType.REENTRANT)) {
			assertThat(app.http.delete().uri("/distributedlocks/" + key).retrieve().toBodilessEntity()
				.getStatusCode().value()).isEqualTo(403);
			assertThat(app.get("/distributedlocks/" + key)).containsEntry("held", true);
			assertThat(other.isLost()).isFalse();
		}
		// closed without LockLostException: the lock was never touched
	}

	@Test
	void forceReleaseWithThePropertyFreesTheLockAndItsHolderLearnsItLostIt() {
		String key = name() + ":9";
		try (WebApp allowed = WebApp.start(server, "distributed-lock.endpoint.force-release-enabled=true")) {
			LockHandle other = acquireOnOtherInstance(key, LockType.REENTRANT);
			Map<String, Object> response = allowed.http.delete()
				.uri("/distributedlocks/" + key)
				.retrieve()
				.body(new org.springframework.core.ParameterizedTypeReference<Map<String, Object>>() {
				});
			assertThat(response).containsEntry("released", true);
			assertThat(SharedRedis.redis().hasKey("lock:" + key)).isFalse();
			assertThat(allowed.get("/distributedlocks/" + key)).containsEntry("held", false);
			// another owner gets it at once
			try (LockHandle next = locks.acquire(LockDefinition.builder(key).acquireTimeout(Duration.ZERO).build())) {
				assertThat(next.fencingToken()).isGreaterThan(other.fencingToken());
			}
			assertThatThrownBy(other::close).isInstanceOf(LockLostException.class);
		}
	}

	@Test
	void aLockLostEventComesBeforeTheHoldersRelease() {
		String key = name() + ":lost";
		LockHandle handle = locks.acquire(LockDefinition.builder(key).lease(Duration.ofMillis(600)).build());
		SharedRedis.redis().delete("lock:" + key);
		Awaitility.await().atMost(Duration.ofSeconds(10))
			.until(() -> app.lostEvents().stream().anyMatch((event) -> event.getKey().equals(key)));
		// the handle is still open: the event came from the watchdog, before the release
		assertThat(handle.isLost()).isTrue();
		LockLostEvent event = app.lostEvents().stream().filter((e) -> e.getKey().equals(key)).findFirst().orElseThrow();
		assertThat(event.getLockType()).isEqualTo(LockType.REENTRANT);
		assertThat(event.getType()).isEqualTo("reentrant");
		assertThat(event.getReason()).contains("watchdog");
		assertThatThrownBy(handle::close).isInstanceOf(LockLostException.class);
		assertThat(app.lostEvents().stream().filter((e) -> e.getKey().equals(key))).hasSize(1);
	}

	@Test
	void aSemaphoresMetersCarryTypeSemaphore() {
		String name = name();
		locks.execute(LockDefinition.builder(name + ":1").permits(3).build(), () -> null);
		assertThat(app.meter("distributed.lock.acquire", "lock:" + name, "type:semaphore", "outcome:acquired"))
			.isEqualTo(1);
		assertThat(app.meter("distributed.lock.held", "lock:" + name, "type:semaphore", "outcome:released"))
			.isEqualTo(1);
		assertThat(app.meter("distributed.lock.acquire", "lock:" + name, "type:reentrant")).isZero();
	}

	@Test
	@SuppressWarnings("unchecked")
	void theEndpointListsEveryHolderOfASemaphoreWithItsLease() throws Exception {
		String key = name() + ":sem";
		LockDefinition semaphore = LockDefinition.builder(key).permits(3).lease(Duration.ofSeconds(20)).build();
		try (LockHandle mine = locks.acquire(semaphore);
				LockHandle other = otherInstance.acquire(LockRequest.builder(key).permits(3)
						.lease(Duration.ofSeconds(20)).build())) {
			assertThat(other).isNotNull();
			Map<String, Object> lock = app.get("/distributedlocks/" + key);
			assertThat(lock).containsEntry("key", key).containsEntry("held", true).containsEntry("type", "semaphore")
				.containsEntry("permits", 3);
			// this instance's own list names it as the key's state and the meters do
			assertThat((List<Map<String, Object>>) app.get("/distributedlocks").get("locks"))
				.filteredOn((l) -> l.get("key").equals(key))
				.singleElement()
				.satisfies((held) -> assertThat(held).containsEntry("type", "semaphore").containsEntry("permits", 3));
			assertThat(lock.get("owners")).asList().containsExactlyInAnyOrder(Owners.current(app.bean(RedisLockClient.class), key), Owners.current(otherInstance));
			List<Map<String, Object>> holders = (List<Map<String, Object>>) lock.get("holders");
			assertThat(holders).as("each holder with its lease").hasSize(2).allSatisfy((holder) -> {
				assertThat(holder.get("owner")).isIn(Owners.current(app.bean(RedisLockClient.class), key), Owners.current(otherInstance));
				assertThat(((Number) holder.get("leaseMillis")).longValue()).isBetween(1L, 20_000L);
			});
		}
		assertThat(app.get("/distributedlocks/" + key)).containsEntry("held", false);
	}

	@Test
	void aLockLostEventComesWhenASemaphorePermitIsLostAndTheOtherPermitIsKept(CapturedOutput output) throws Exception {
		String key = name() + ":sem-lost";
		LockDefinition semaphore = LockDefinition.builder(key).permits(2).lease(Duration.ofMillis(600)).build();
		LockHandle handle = locks.acquire(semaphore);
		try (LockHandle other = otherInstance.acquire(LockRequest.builder(key).permits(2).lease(Duration.ofMillis(600))
				.build())) {
			assertThat(other).isNotNull();
			// this instance's holder field is removed by hand, as an operator or a failover might
			assertThat(SharedRedis.redis().opsForHash().delete("lock:" + key, "h:" + Owners.current(app.bean(RedisLockClient.class), key))).isEqualTo(1L);
			Awaitility.await().atMost(Duration.ofSeconds(10))
				.until(() -> app.lostEvents().stream().anyMatch((event) -> event.getKey().equals(key)));
			assertThat(handle.isLost()).isTrue();
			LockLostEvent event = app.lostEvents().stream().filter((e) -> e.getKey().equals(key)).findFirst()
				.orElseThrow();
			// one name for the kind, as the meters and the endpoint say; the type it was acquired as stays
			assertThat(event.getType()).isEqualTo("semaphore");
			assertThat(event.getPermits()).isEqualTo(2);
			assertThat(event.getLockType()).isEqualTo(LockType.REENTRANT);
			assertThat(output.getOut()).contains("Lock '" + key + "' (SEMAPHORE) held by");
			assertThatThrownBy(handle::close).isInstanceOf(LockLostException.class);
			// the other owner's permit is renewed on, untouched
			Awaitility.await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(3)).until(() -> !other.isLost());
		}
		assertThat(app.meter("distributed.lock.lost", "lock:" + key.substring(0, key.indexOf(':')), "type:semaphore"))
			.isEqualTo(1);
	}

	private static LockHandle acquireOnOtherInstance(String key, LockType type) {
		try {
			LockHandle handle = otherInstance.acquire(LockRequest.builder(key).type(type).lease(Duration.ofSeconds(20))
					.timeout(Duration.ofSeconds(5)).build());
			assertThat(handle).isNotNull();
			return handle;
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String mineOwner() {
		return Owners.current(app.bean(RedisLockClient.class));
	}

}
