package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Lock handles, the lock context and the minimum hold against a real redis-server.
 */
class LockHandleTests {

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private final List<RedisLockClient> clients = new ArrayList<>();

	private DistributedLockTemplate first;

	private DistributedLockTemplate second;

	private String key;

	@BeforeEach
	void setUp() {
		this.first = newInstance();
		this.second = newInstance();
		this.key = "handle:" + UUID.randomUUID();
	}

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	private DistributedLockTemplate newInstance() {
		RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.clients.add(client);
		return new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ZERO);
	}

	@Test
	void aHandleClosedOnAnotherThreadFreesTheLockAndASecondCloseDoesNothing() throws Exception {
		LockHandle handle = this.first.acquire(LockDefinition.of(this.key));
		assertThat(this.second.tryAcquire(LockDefinition.of(this.key))).isEmpty();
		CompletableFuture.runAsync(handle::close).get(10, TimeUnit.SECONDS);
		assertThat(redis.hasKey("lock:" + this.key)).isFalse();
		try (LockHandle next = this.second.acquire(LockDefinition.of(this.key))) {
			handle.close();
			assertThat(next.isLost()).isFalse();
			assertThat(redis.hasKey("lock:" + this.key)).isTrue();
		}
		// the thread that acquired the closed handle holds nothing any more, and may acquire anew
		assertThat(this.clients.get(0).isHeldByCurrentThread(this.key, LockType.REENTRANT)).isFalse();
		this.first.acquire(LockDefinition.of(this.key)).close();
	}

	@Test
	void aThreadWithItsInterruptFlagSetStillReleasesAndKeepsTheFlag() {
		LockHandle handle = this.first.acquire(LockDefinition.of(this.key));
		Lock lock = this.first.getLock(this.key + ":lock");
		lock.lock();
		Thread.currentThread().interrupt();
		try {
			handle.close();
			lock.unlock();
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(redis.hasKey("lock:" + this.key)).isFalse();
		assertThat(redis.hasKey("lock:" + this.key + ":lock")).isFalse();
	}

	@Test
	void tryAcquireReturnsEmptyWhenTheTimeoutPassesAndAcquireThrows() {
		try (LockHandle held = this.first.acquire(LockDefinition.of(this.key))) {
			LockDefinition waitALittle = LockDefinition.builder(this.key).acquireTimeout(Duration.ofMillis(300)).build();
			long start = System.nanoTime();
			Optional<LockHandle> none = this.second.tryAcquire(waitALittle);
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			assertThat(none).isEmpty();
			assertThat(waited).isBetween(Duration.ofMillis(300), Duration.ofMillis(2000));
			assertThatThrownBy(() -> this.second.acquire(waitALittle)).isInstanceOf(LockAcquisitionException.class)
				.hasMessageContaining(this.key);
			assertThat(held.isLost()).isFalse();
		}
	}

	@Test
	void aHandleWhoseHardLeaseRanOutIsLostAndItsCloseSaysSo() {
		LockHandle handle = this.first
			.acquire(LockDefinition.builder(this.key).lease(Duration.ofMillis(200)).autoRenew(false).build());
		handle.checkHeld();
		org.awaitility.Awaitility.await().atMost(5, TimeUnit.SECONDS).until(handle::isLost);
		assertThatThrownBy(handle::checkHeld).isInstanceOf(LockLostException.class).hasMessageContaining(this.key);
		assertThatThrownBy(handle::close).isInstanceOf(LockLostException.class);
		handle.close();
	}

	@Test
	void theLockContextShowsTheInnermostLockAndEachKeyOfAMultiKeyCall() {
		assertThatIllegalStateException().isThrownBy(LockContext::current);
		LockDefinition a = LockDefinition.of(this.key + ":a");
		LockDefinition b = LockDefinition.of(this.key + ":b");
		this.first.executeAll(List.of(b, a), () -> {
			long tokenA = LockContext.current(this.key + ":a").fencingToken();
			long tokenB = LockContext.current(this.key + ":b").fencingToken();
			assertThat(tokenA).isNotEqualTo(tokenB);
			this.first.execute(this.key + ":c", () -> {
				assertThat(LockContext.current().key()).isEqualTo(this.key + ":c");
				assertThat(LockContext.current(this.key + ":a").fencingToken()).isEqualTo(tokenA);
				return null;
			});
			assertThat(LockContext.current().key()).isIn(this.key + ":a", this.key + ":b");
			assertThatIllegalStateException().isThrownBy(() -> LockContext.current(this.key + ":c"));
			return null;
		});
		assertThatIllegalStateException().isThrownBy(LockContext::current);
	}

	@Test
	void aMinimumHoldKeepsOtherInstancesOutAfterTheReleaseUntilItEnds() {
		LockDefinition definition = LockDefinition.builder(this.key).holdAtLeast(Duration.ofMillis(1500)).build();
		long acquired = System.nanoTime();
		this.first.execute(definition, () -> null);
		// the key stays, owned by nobody, for what is left of the 1.5 s
		assertThat(redis.getExpire("lock:" + this.key, TimeUnit.MILLISECONDS)).isBetween(500L, 1500L);
		assertThat(redis.opsForHash().keys("lock:" + this.key)).containsOnly("~k", "~f");
		assertThat(this.first.tryAcquire(LockDefinition.of(this.key))).as("not even the same thread").isEmpty();
		assertThat(this.second.tryAcquire(LockDefinition.of(this.key))).isEmpty();
		LockDefinition waiting = LockDefinition.builder(this.key).acquireTimeout(Duration.ofSeconds(10)).build();
		try (LockHandle next = this.second.acquire(waiting)) {
			assertThat(Duration.ofNanos(System.nanoTime() - acquired)).isBetween(Duration.ofMillis(1500),
					Duration.ofMillis(4000));
		}
	}

	@Test
	void aMinimumHoldThatHasPassedReleasesAsUsual() throws Exception {
		LockDefinition definition = LockDefinition.builder(this.key).holdAtLeast(Duration.ofMillis(100)).build();
		this.first.execute(definition, () -> {
			Thread.sleep(200); // the guarded work outlasts the minimum hold
			return null;
		});
		assertThat(redis.hasKey("lock:" + this.key)).isFalse();
	}

	@Test
	void aMinimumHoldOfAWriteLockKeepsReadersOutAndOfAReadLockKeepsWritersOut() {
		LockDefinition write = LockDefinition.builder(this.key).type(LockType.WRITE)
			.holdAtLeast(Duration.ofSeconds(10)).build();
		LockDefinition read = LockDefinition.builder(this.key + ":r").type(LockType.READ)
			.holdAtLeast(Duration.ofSeconds(10)).build();
		this.first.execute(write, () -> null);
		this.first.execute(read, () -> null);
		assertThat(this.second.tryAcquire(LockDefinition.builder(this.key).type(LockType.READ).build())).isEmpty();
		assertThat(this.first.tryAcquire(LockDefinition.builder(this.key).type(LockType.WRITE).build())).isEmpty();
		assertThat(this.second.tryAcquire(LockDefinition.builder(this.key + ":r").type(LockType.WRITE).build()))
			.isEmpty();
		// readers still share a read lock held at least a while
		this.second.tryAcquire(LockDefinition.builder(this.key + ":r").type(LockType.READ).build())
			.orElseThrow()
			.close();
		redis.delete(List.of("lock:" + this.key, "lock:" + this.key + ":r"));
	}

}
