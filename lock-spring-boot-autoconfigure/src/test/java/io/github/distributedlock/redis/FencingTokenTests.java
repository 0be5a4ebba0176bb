package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing tokens against a real redis-server: strictly increasing per key in the order owners held the lock,
 * across instances, threads, hand-overs and grants, for every lock type, and after the key is gone.
 */
class FencingTokenTests {

	private final List<RedisLockClient> clients = new ArrayList<>();

	private String key;

	@BeforeEach
	void setUp() {
		this.key = "fence:" + UUID.randomUUID();
	}

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	private DistributedLockTemplate newInstance(RedisConnectionFactory factory) {
		RedisLockClient client = new RedisLockClient(factory, "lock:");
		this.clients.add(client);
		return new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ofSeconds(60));
	}

	@Test
	void reentrantTokensStrictlyIncreaseInTheOrderOwnersHeldTheLock() throws Exception {
		assertTokensFollowTheHolders(LockType.REENTRANT);
	}

	@Test
	void writeTokensStrictlyIncreaseInTheOrderOwnersHeldTheLock() throws Exception {
		assertTokensFollowTheHolders(LockType.WRITE);
	}

	/**
	 * Two instances x 8 threads x 25 acquisitions of one key: the tokens recorded inside the critical section,
	 * in the order the owners held it, strictly increase, and no two owners were ever inside together. Local
	 * hand-overs and grants to the other instance happen all the time under this contention.
	 */
	private void assertTokensFollowTheHolders(LockType type) throws Exception {
		List<DistributedLockTemplate> instances = List.of(newInstance(SharedRedis.connectionFactory()),
				newInstance(SharedRedis.connectionFactory()));
		LockDefinition definition = LockDefinition.builder(this.key).type(type).build();
		List<Long> tokens = new ArrayList<>();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		Concurrently.run(16, 120, (thread) -> {
			DistributedLockTemplate template = instances.get(thread % 2);
			for (int i = 0; i < 25; i++) {
				template.execute(definition, () -> {
					if (inside.incrementAndGet() != 1) {
						overlaps.incrementAndGet();
					}
					tokens.add(LockContext.current().fencingToken());
					inside.decrementAndGet();
					return null;
				});
			}
		});
		assertThat(overlaps).hasValue(0);
		assertThat(tokens).hasSize(400).isSorted().doesNotHaveDuplicates();
		assertThat(tokens.get(0)).isPositive();
		System.out.println(type + " tokens in the order the owners held the lock: " + tokens.subList(0, 5) + " ... "
				+ tokens.get(tokens.size() - 1) + " (" + tokens.size() + ", strictly increasing)");
	}

	@Test
	void aReaderSeesATokenGreaterThanEveryWriterBeforeItAndEveryTokenIsNew() throws Exception {
		List<DistributedLockTemplate> instances = List.of(newInstance(SharedRedis.connectionFactory()),
				newInstance(SharedRedis.connectionFactory()));
		LockDefinition read = LockDefinition.builder(this.key).type(LockType.READ).build();
		LockDefinition write = LockDefinition.builder(this.key).type(LockType.WRITE).build();
		AtomicLong lastWrite = new AtomicLong();
		List<Long> tokens = new CopyOnWriteArrayList<>();
		AtomicInteger stale = new AtomicInteger();
		Concurrently.run(8, 120, (thread) -> {
			DistributedLockTemplate template = instances.get(thread % 2);
			for (int i = 0; i < 25; i++) {
				boolean writer = (thread + i) % 4 == 0;
				template.execute(writer ? write : read, () -> {
					long token = LockContext.current().fencingToken();
					tokens.add(token);
					// writers exclude readers: the last writer's token was recorded before this hold began
					if (token <= lastWrite.get()) {
						stale.incrementAndGet();
					}
					if (writer) {
						lastWrite.set(token);
					}
					return null;
				});
			}
		});
		assertThat(stale).hasValue(0);
		assertThat(tokens).hasSize(200).doesNotHaveDuplicates();
	}

	@Test
	void aReentryReturnsTheTokenOfItsOuterHoldForEveryType() {
		DistributedLockTemplate template = newInstance(SharedRedis.connectionFactory());
		for (LockType type : LockType.values()) {
			LockDefinition definition = LockDefinition.builder(this.key + type).type(type).build();
			try (LockHandle outer = template.acquire(definition); LockHandle inner = template.acquire(definition)) {
				assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken()).isPositive();
				template.execute(definition,
						() -> assertThat(LockContext.current().fencingToken()).isEqualTo(outer.fencingToken()));
			}
		}
	}

	@Test
	void aHandOverToALocalWaiterAndAGrantToAnotherInstanceEachGiveAFreshToken() throws Exception {
		DistributedLockTemplate first = newInstance(SharedRedis.connectionFactory());
		DistributedLockTemplate second = newInstance(SharedRedis.connectionFactory());
		LockDefinition definition = LockDefinition.of(this.key);
		LockHandle held = first.acquire(definition);
		AtomicReference<Long> granted = new AtomicReference<>();
		Thread otherInstance = new Thread(() -> {
			try (LockHandle handle = second.acquire(definition)) {
				granted.set(handle.fencingToken());
			}
		});
		otherInstance.start();
		// the other instance queues in Redis; its wait is granted by the release
		awaitQueued(SharedRedis.redis(), "lock:" + this.key);
		held.close();
		otherInstance.join(10_000);
		assertThat(granted.get()).isGreaterThan(held.fencingToken());

		LockHandle again = first.acquire(definition);
		AtomicReference<Long> handedOver = new AtomicReference<>();
		CountDownLatch waiting = new CountDownLatch(1);
		Thread localWaiter = new Thread(() -> {
			waiting.countDown();
			try (LockHandle handle = first.acquire(definition)) {
				handedOver.set(handle.fencingToken());
			}
		});
		localWaiter.start();
		waiting.await();
		RedisLockClient firstClient = this.clients.get(0);
		org.awaitility.Awaitility.await().until(() -> ClientProbe.of(firstClient).queuedThreads(this.key) == 1);
		again.close();
		localWaiter.join(10_000);
		assertThat(again.fencingToken()).isGreaterThan(granted.get());
		assertThat(handedOver.get()).isGreaterThan(again.fencingToken());
	}

	private static void awaitQueued(StringRedisTemplate redis, String redisKey) {
		org.awaitility.Awaitility.await()
			.atMost(10, TimeUnit.SECONDS)
			.until(() -> redis.opsForHash().keys(redisKey).stream().anyMatch((field) -> field.toString().startsWith("q:")));
	}

	@Test
	void afterTheKeyIsDeletedByHandTheNextTokenIsStillGreater() {
		DistributedLockTemplate template = newInstance(SharedRedis.connectionFactory());
		for (LockType type : LockType.values()) {
			LockDefinition definition = LockDefinition.builder(this.key + type).type(type).build();
			long before;
			try (LockHandle handle = template.acquire(definition)) {
				before = handle.fencingToken();
			}
			catch (RuntimeException ex) {
				throw ex;
			}
			LockHandle lost = template.acquire(definition);
			assertThat(lost.fencingToken()).isGreaterThan(before);
			SharedRedis.redis().delete("lock:" + this.key + type);
			try (LockHandle next = newInstance(SharedRedis.connectionFactory()).acquire(definition)) {
				assertThat(next.fencingToken()).isGreaterThan(lost.fencingToken());
			}
		}
	}

	@Test
	void afterARestartWithoutPersistenceTheNextTokenIsStillGreater() {
		try (RedisServer server = RedisServer.start("--save", "", "--appendonly", "no")) {
			var factory = server.connectionFactory();
			try {
				DistributedLockTemplate template = newInstance(factory);
				long before = template.execute(this.key, () -> LockContext.current().fencingToken());
				server.kill();
				server.restart();
				long after = template.execute(this.key, () -> LockContext.current().fencingToken());
				assertThat(after).isGreaterThan(before);
			}
			finally {
				this.clients.forEach(RedisLockClient::close);
				this.clients.clear();
				factory.destroy();
			}
		}
	}

}
