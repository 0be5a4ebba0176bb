package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.LockHolder;
import io.github.distributedlock.test.OnThread;
import io.github.distributedlock.test.RedisClientLibrary;
import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Faults: Redis killed and restarted under the client, and a lock holder process killed with SIGKILL.
 */
@SuppressWarnings("try") // a resource that only holds a lock for the block is not referenced in it
class RedisFailureTests {

	private RedisServer server;

	private RedisConnectionFactory connectionFactory;

	private RedisLockClient client;

	private DistributedLockTemplate template;

	private final String key = "fault:" + UUID.randomUUID();

	/**
	 * The Redis client library of the lock client under test: a subclass that returns another runs every test
	 * on that one.
	 */
	RedisClientLibrary clientLibrary() {
		return RedisClientLibrary.LETTUCE;
	}

	@BeforeEach
	void start() {
		this.server = RedisServer.start();
		this.connectionFactory = clientLibrary().connectTo(this.server.host(), this.server.port());
		this.client = new RedisLockClient(this.connectionFactory, "lock:");
		this.template = new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ofSeconds(5));
	}

	@AfterEach
	void stop() {
		this.client.close();
		RedisClientLibrary.destroy(this.connectionFactory);
		this.server.close();
	}

	@Test
	void whenRedisIsDownAcquisitionFailsWithinTheAcquireTimeoutAndNeverRunsTheBody() {
		this.server.kill();
		AtomicBoolean ran = new AtomicBoolean();
		long start = System.nanoTime();
		// a try that cannot reach Redis is sent again until the acquire timeout (Redis may be back by then); then
		// the call fails with what the last try failed with
		assertThatThrownBy(() -> this.template.execute(
				LockDefinition.builder(this.key).acquireTimeout(Duration.ofMillis(1500)).build(), () -> ran.getAndSet(true)))
			.isInstanceOf(DistributedLockException.class)
			.isNotInstanceOf(LockAcquisitionException.class)
			.hasMessageContaining("'" + this.key + "'");
		// bounded by the acquire timeout plus one command timeout (the connection factory's is 2 s)
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500 + 2000 + 1000));
		assertThat(ran).isFalse();

		this.server.restart();
		await().atMost(Duration.ofSeconds(20))
			.ignoreExceptions()
			.untilAsserted(() -> assertThat(this.template.execute(this.key, () -> "locked again")).isEqualTo("locked again"));
	}

	/**
	 * A {@code Lock} view's {@code lock()} has no acquire timeout, as {@link java.util.concurrent.locks.Lock#lock()}
	 * has none: it waits for a holder past the template's acquire timeout, and its tries that cannot reach Redis
	 * are sent again, without an exception, until Redis is back; {@code tryLock(time, unit)} is the bounded wait.
	 */
	@Test
	void aLockViewsLockWaitsPastTheAcquireTimeoutAndThroughARedisOutage() throws Exception {
		DistributedLockTemplate halfASecond = new DistributedLockTemplate(this.client, Duration.ofSeconds(30),
				Duration.ofMillis(500));
		Lock lock = halfASecond.getLock(this.key);
		try (OnThread<Boolean> holder = OnThread.start("holder", () -> {
			lock.lock();
			try {
				Thread.sleep(1500);
			}
			finally {
				lock.unlock();
			}
			return true;
		})) {
			await().atMost(Duration.ofSeconds(10)).until(() -> this.server.cli("EXISTS", "lock:" + this.key).trim().equals("1"));
			long start = System.nanoTime();
			lock.lock();
			try {
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("lock() waited for the holder")
					.isGreaterThan(Duration.ofMillis(500));
			}
			finally {
				lock.unlock();
			}
			assertThat(holder.get(10)).isTrue();
		}

		this.server.kill();
		try (OnThread<Boolean> waiter = OnThread.start("waiter", () -> {
			lock.lock();
			lock.unlock();
			return true;
		})) {
			// past the acquire timeout plus a command timeout (2 s), the wait goes on without an exception
			await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> !waiter.isDone());
			this.server.restart();
			assertThat(waiter.get(30)).isTrue();
		}
	}

	@Test
	void aLockWipedByARedisRestartIsReportedLostAtRelease() throws Exception {
		assertThat((this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofMillis(600)).interruptible(false)
				.releasedByThread().build()) != null))
			.isTrue();
		this.server.kill();
		this.server.restart();
		// the new, empty Redis knows nothing of the lock: the watchdog must find that out
		await().pollInSameThread().atMost(Duration.ofSeconds(20)).until(() -> ClientProbe.of(this.client).lostReason(this.key, LockType.REENTRANT) != null);
		assertThatThrownBy(() -> this.client.release(this.key, LockType.REENTRANT)).isInstanceOf(LockLostException.class);
	}

	@Test
	void aHolderProcessKilledWithSigkillFreesTheLockWithinItsLease() throws Exception {
		// 3 s: a fresh JVM's first renewals on a loaded machine can come late, and a shorter lease then ends
		// while the holder still runs (what this test checks is the end after a kill)
		long leaseMillis = 3000;
		try (HolderProcess holder = new HolderProcess(this.server.port(), this.key, leaseMillis, "REENTRANT")) {
			StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
			// its watchdog keeps it alive past the lease while it runs
			await().during(Duration.ofMillis(leaseMillis + 500))
				.atMost(Duration.ofSeconds(10))
				.until(() -> redis.opsForHash().hasKey("lock:" + this.key, holder.owner()));
			assertThat(this.template.getLock(this.key).tryLock()).isFalse();

			holder.kill();
			long killedAt = System.nanoTime();

			assertThat(this.template.execute(this.key, () -> "taken over")).isEqualTo("taken over");
			assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).isLessThan(Duration.ofMillis(leaseMillis + 1000));
		}
	}

	@Test
	void releaseScriptsAreNotInRedisAfterARestartAndAreLoadedAgain() throws Exception {
		this.template.execute(this.key, () -> null);
		this.server.kill();
		this.server.restart();
		// EVALSHA answers NOSCRIPT on the new server; Spring Data Redis falls back to EVAL
		await().atMost(Duration.ofSeconds(20))
			.ignoreExceptions()
			.untilAsserted(() -> assertThat(this.template.execute(this.key, () -> List.of("ok"))).containsExactly("ok"));
	}

	@Test
	void aClientCreatedWhileRedisIsDownWorksOnceRedisIsBack() throws Exception {
		this.client.close();
		this.server.kill();
		long start = System.nanoTime();
		RedisLockClient early = new RedisLockClient(this.connectionFactory, "lock:");
		try {
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
			assertThat(early.isListening()).isFalse();
			DistributedLockTemplate earlyTemplate = new DistributedLockTemplate(early, Duration.ofSeconds(30),
					Duration.ofSeconds(1));
			assertThatThrownBy(() -> earlyTemplate.execute(this.key, () -> "unlocked!"))
				.isInstanceOf(DistributedLockException.class);

			this.server.restart();
			await().atMost(Duration.ofSeconds(20))
				.ignoreExceptions()
				.untilAsserted(() -> assertThat(earlyTemplate.execute(this.key, () -> "locked")).isEqualTo("locked"));
			// the next waiter makes the subscription, so releases wake waiters again
			try (LockHolder holder = new LockHolder(earlyTemplate.getLock(this.key))) {
				assertThat(earlyTemplate.getLock(this.key).tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
			}
			await().atMost(Duration.ofSeconds(10)).until(early::isListening);
		}
		finally {
			early.close();
		}
	}

}
