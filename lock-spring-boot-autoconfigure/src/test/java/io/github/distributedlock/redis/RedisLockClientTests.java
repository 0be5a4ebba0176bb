package io.github.distributedlock.redis;

import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.Owners;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.CommandStats;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.LockHolder;
import io.github.distributedlock.test.RedisClientLibrary;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The reentrant lock against a real redis-server: exclusion, reentrancy, leases, renewal, waiting, loss.
 */
@SuppressWarnings("try") // a resource that only holds a lock for the block is not referenced in it
class RedisLockClientTests {

	private RedisConnectionFactory connectionFactory;

	private static StringRedisTemplate redis;

	private final List<RedisLockClient> clients = new ArrayList<>();

	private RedisLockClient client;

	private DistributedLockTemplate template;

	private String key;

	@BeforeAll
	static void connect() {
		redis = SharedRedis.redis();
	}

	/**
	 * The Redis client library of the lock clients under test: a subclass that returns another runs every test
	 * on that one. (The assertions read Redis through Lettuce.)
	 */
	RedisClientLibrary clientLibrary() {
		return RedisClientLibrary.LETTUCE;
	}

	@BeforeEach
	void setUp() {
		this.connectionFactory = SharedRedis.connectionFactory(clientLibrary());
		this.client = newClient();
		this.template = new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ofSeconds(5));
		this.key = "test:" + UUID.randomUUID();
	}

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	private RedisLockClient newClient() {
		RedisLockClient lockClient = new RedisLockClient(this.connectionFactory, "lock:");
		this.clients.add(lockClient);
		return lockClient;
	}

	private String redisKey() {
		return "lock:" + this.key;
	}

	private String owner(RedisLockClient lockClient) {
		return Owners.current(lockClient);
	}

	@Test
	void heldLockIsOneHashWithOwnerAndLeaseAndNoKeyIsLeftAfterRelease() {
		String result = this.template.execute(this.key, () -> {
			// the holder's hold count, and the fencing token it was given
			assertThat(redis.<String, String>opsForHash().entries(redisKey()))
				.containsOnlyKeys(owner(this.client), "~f")
				.containsEntry(owner(this.client), "1")
				.containsEntry("~f", Long.toString(LockContext.current().fencingToken()));
			assertThat(redis.getExpire(redisKey(), TimeUnit.MILLISECONDS)).isBetween(25_000L, 30_000L);
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void aReentryCostsNoRoundTripAndTheLockIsFreedWhenTheHoldsReachZero() {
		this.template.execute(this.key, () -> {
			this.template.execute(this.key, () -> {
				// counted by the client: Redis still records the one hold of the outer acquire
				assertThat(redis.opsForHash().get(redisKey(), owner(this.client))).isEqualTo("1");
				assertThat(this.client.isHeldByCurrentThread(this.key, LockType.REENTRANT)).isTrue();
				return null;
			});
			assertThat(redis.opsForHash().get(redisKey(), owner(this.client))).isEqualTo("1");
			return null;
		});
		assertThat(redis.hasKey(redisKey())).isFalse();
		assertThat(this.client.isHeldByCurrentThread(this.key, LockType.REENTRANT)).isFalse();
	}

	@Test
	void aFreshAttemptNeverTakesOverAHoldOfAnEarlierAttemptOfTheSameThread() throws Exception {
		// as left by an earlier attempt of this thread whose reply was lost (a try that timed out but ran): the
		// owner id names that attempt, so a later attempt sees another holder and never enters on its hold
		String earlier = Owners.prefix(this.client) + "0";
		redis.opsForHash().put(redisKey(), earlier, "1");
		redis.expire(redisKey(), Duration.ofSeconds(30));
		assertThat((this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(30)).interruptible(false)
				.releasedByThread().build()) != null))
			.isFalse();
		assertThat(redis.<String, String>opsForHash().entries(redisKey())).containsOnlyKeys(earlier);
		redis.delete(redisKey());
	}

	@Test
	void aReentryLateInAHardLeaseExtendsItInRedis() throws Exception {
		assertThat((this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofMillis(2400)).autoRenew(false)
				.interruptible(false).releasedByThread().build()) != null))
			.isTrue();
		// past two thirds of the lease (1.6 s) the client no longer trusts its own count alone; 0.7 s are left
		// for the re-entry on a loaded machine
		await().pollDelay(Duration.ofMillis(1700)).atMost(Duration.ofSeconds(3)).until(() -> true);
		assertThat((this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofMillis(2400)).autoRenew(false)
				.interruptible(false).releasedByThread().build()) != null))
			.isTrue();
		assertThat(redis.opsForHash().get(redisKey(), owner(this.client))).isEqualTo("2");
		// a lease from the re-entry, not the 0.7 s left of the first one
		assertThat(redis.getExpire(redisKey(), TimeUnit.MILLISECONDS)).isGreaterThan(1500);
		this.client.release(this.key, LockType.REENTRANT);
		this.client.release(this.key, LockType.REENTRANT);
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void aLocalHolderOverrunningItsHardLeaseDoesNotBlockTheOtherThreadsOfItsInstance() throws Exception {
		assertThat((this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofMillis(300)).autoRenew(false)
				.interruptible(false).releasedByThread().build()) != null))
			.isTrue();
		ExecutorService pool = Executors.newSingleThreadExecutor();
		try {
			// the same client, another thread: it queues locally behind the holder, until the lease ends
			Future<String> next = pool.submit(() -> this.template.execute(
					LockDefinition.builder(this.key).acquireTimeout(Duration.ofSeconds(5)).build(), () -> "after the lease"));
			assertThat(next.get(10, TimeUnit.SECONDS)).isEqualTo("after the lease");
		}
		finally {
			pool.shutdownNow();
		}
		assertThatThrownBy(() -> this.client.release(this.key, LockType.REENTRANT)).isInstanceOf(LockLostException.class);
	}

	@Test
	void releaseByAnotherOwnerIsRefusedAndChangesNothing() throws Exception {
		Lock lock = this.template.getLock(this.key);
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		AtomicReference<String> holder = new AtomicReference<>();
		Thread thread = new Thread(() -> {
			lock.lock();
			holder.set(owner(this.client));
			held.countDown();
			try {
				done.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			lock.unlock();
		});
		thread.start();
		assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();

		assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
			.hasMessageContaining(this.key);
		Lock fromOtherInstance = new DistributedLockTemplate(newClient(), Duration.ofSeconds(30), Duration.ZERO)
			.getLock(this.key);
		assertThatThrownBy(fromOtherInstance::unlock).isInstanceOf(IllegalMonitorStateException.class);
		// and in Redis itself: the release script refuses an owner that holds nothing
		long refused = redis.execute(ReentrantKind.RELEASE, List.of(redisKey()), "intruder:1",
				this.client.getChannel(), "1");
		assertThat(refused).isEqualTo(LockScripts.NOT_HELD);
		assertThat(ScriptResults.withoutToken(redis.opsForHash().entries(redisKey())))
			.containsExactly(Map.entry(holder.get(), "1"));

		done.countDown();
		thread.join(5000);
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void neverTwoHoldersAndNoLostUpdateAcrossTwoClientsWithManyThreads() throws Exception {
		DistributedLockTemplate second = new DistributedLockTemplate(newClient(), Duration.ofSeconds(30),
				Duration.ofSeconds(30));
		DistributedLockTemplate first = new DistributedLockTemplate(this.client, Duration.ofSeconds(30),
				Duration.ofSeconds(30));
		String counterKey = "counter:" + this.key;
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger maxInside = new AtomicInteger();
		int threadsPerClient = 8;
		int iterations = 40;
		Concurrently.run(threadsPerClient * 2, 120, (thread) -> {
			DistributedLockTemplate instance = (thread % 2 == 0) ? first : second;
			for (int i = 0; i < iterations; i++) {
				instance.execute(this.key, () -> {
					maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
					Concurrently.incrementUnsafely(redis, counterKey);
					inside.decrementAndGet();
					return null;
				});
			}
		});
		assertThat(maxInside.get()).isEqualTo(1);
		assertThat(redis.opsForValue().get(counterKey)).isEqualTo(Integer.toString(threadsPerClient * 2 * iterations));
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void differentKeysAreHeldInParallel() throws Exception {
		CyclicBarrier bothInside = new CyclicBarrier(2);
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			Future<Integer> a = pool.submit(() -> this.template.execute(this.key + ":a",
					() -> bothInside.await(5, TimeUnit.SECONDS)));
			Future<Integer> b = pool.submit(() -> this.template.execute(this.key + ":b",
					() -> bothInside.await(5, TimeUnit.SECONDS)));
			// each body waits for the other: both complete only if both locks were held at once
			assertThat(List.of(a.get(10, TimeUnit.SECONDS), b.get(10, TimeUnit.SECONDS))).containsExactlyInAnyOrder(0, 1);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void acquireTimeoutEndsTheWaitWithLockAcquisitionExceptionAndTheBodyDoesNotRun() throws Exception {
		try (LockHolder holder = new LockHolder(this.template.getLock(this.key))) {
			AtomicBoolean ran = new AtomicBoolean();
			LockDefinition definition = LockDefinition.builder(this.key).acquireTimeout(Duration.ofMillis(300)).build();
			assertThatThrownBy(() -> this.template.execute(definition, () -> ran.getAndSet(true)))
				.isInstanceOfSatisfying(LockAcquisitionException.class, (ex) -> {
					assertThat(ex.getKey()).isEqualTo(this.key);
					// kept to within tens of milliseconds: the wait ends at the deadline, then one last try
					assertThat(ex.getWaited()).isBetween(Duration.ofMillis(300), Duration.ofMillis(400));
					assertThat(ex).hasMessageContaining("'" + this.key + "'").hasMessageContaining("ms");
				});
			assertThat(ran).isFalse();
			assertThat(this.template.getLock(this.key).tryLock()).isFalse();
		}
	}

	@Test
	void releaseWakesAWaiterLongBeforeTheHolderLeaseEnds() throws Exception {
		RedisLockClient otherInstance = newClient();
		DistributedLockTemplate waiterTemplate = new DistributedLockTemplate(otherInstance, Duration.ofSeconds(30),
				Duration.ofSeconds(20));
		try (LockHolder holder = new LockHolder(this.template.getLock(this.key))) {
			ExecutorService pool = Executors.newSingleThreadExecutor();
			try {
				Future<Long> acquiredAt = pool.submit(() -> waiterTemplate.execute(this.key, System::nanoTime));
				await().atMost(Duration.ofSeconds(5)).until(() -> ClientProbe.of(otherInstance).waitingKeys() == 1);
				long releasedAt = System.nanoTime();
				holder.close();
				long latency = acquiredAt.get(10, TimeUnit.SECONDS) - releasedAt;
				// the holder's lease is 30 s: only the release notification can wake the waiter this soon
				assertThat(Duration.ofNanos(latency)).isLessThan(Duration.ofSeconds(3));
			}
			finally {
				pool.shutdownNow();
			}
		}
	}

	@Test
	void onlyAReleaseSomeoneWaitedForIsPublished() throws Exception {
		long before = publishes();
		for (int i = 0; i < 5; i++) {
			this.template.execute(this.key, () -> null);
		}
		assertThat(publishes()).as("uncontended releases publish nothing").isEqualTo(before);

		RedisLockClient otherInstance = newClient();
		try (LockHolder holder = new LockHolder(this.template.getLock(this.key))) {
			ExecutorService pool = Executors.newSingleThreadExecutor();
			try {
				Future<String> waiter = pool.submit(() -> new DistributedLockTemplate(otherInstance, Duration.ofSeconds(30),
						Duration.ofSeconds(20)).execute(this.key, () -> "woken"));
				await().atMost(Duration.ofSeconds(5)).until(() -> queuedInRedis().size() == 1);
				holder.close();
				assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo("woken");
			}
			finally {
				pool.shutdownNow();
			}
		}
		assertThat(publishes()).as("the grant to the waiting instance is published").isEqualTo(before + 1);
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void aReleaseHandsTheLockToTheNextLocalWaiterInOneRoundTrip() throws Exception {
		// loads the scripts into Redis, so that no EVALSHA below falls back to EVAL (a second call)
		this.template.execute(this.key, () -> null);
		ExecutorService pool = Executors.newSingleThreadExecutor();
		try (LockHolder holder = new LockHolder(this.template.getLock(this.key))) {
			Future<Map<String, String>> next = pool.submit(() -> this.template.execute(this.key,
					() -> Map.of(owner(this.client), redis.<String, String>opsForHash().get(redisKey(), owner(this.client)))));
			await().atMost(Duration.ofSeconds(5)).until(() -> ClientProbe.of(this.client).queuedThreads(this.key) == 1);
			long before = scriptCalls();
			holder.close();
			Map<String, String> seenByNext = next.get(10, TimeUnit.SECONDS);
			assertThat(seenByNext.values()).as("the next waiter's hold count in Redis").containsExactly("1");
			// the holder's release handed the lock over, the next waiter's own release freed it: no acquire
			assertThat(scriptCalls() - before).isEqualTo(2);
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(redis.hasKey(redisKey())).isFalse();
		assertThat(ClientProbe.of(this.client).queuedThreads(this.key)).isZero();
	}

	@Test
	void localWaitersThatGiveUpLeaveTheQueueAndTheNextOneStillGetsTheLock() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(3);
		Lock lock = this.template.getLock(this.key);
		try (LockHolder holder = new LockHolder(lock)) {
			// long enough that it is still queued when the patient waiter joins, also on a loaded machine
			Future<Boolean> timesOut = pool.submit(() -> lock.tryLock(2, TimeUnit.SECONDS));
			Future<?> interrupted = pool.submit(() -> {
				lock.lockInterruptibly();
				lock.unlock();
				return null;
			});
			await().atMost(Duration.ofSeconds(5)).until(() -> ClientProbe.of(this.client).queuedThreads(this.key) == 2);
			Future<String> patient = pool.submit(() -> this.template.execute(this.key, () -> "patient"));
			await().atMost(Duration.ofSeconds(5)).until(() -> ClientProbe.of(this.client).queuedThreads(this.key) == 3);
			interrupted.cancel(true);
			assertThat(timesOut.get(5, TimeUnit.SECONDS)).isFalse();
			await().atMost(Duration.ofSeconds(5)).until(() -> ClientProbe.of(this.client).queuedThreads(this.key) == 1);
			assertThat(patient.isDone()).as("the holder still holds the lock").isFalse();
			holder.close();
			assertThat(patient.get(10, TimeUnit.SECONDS)).isEqualTo("patient");
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void handOversNeverPassByAnotherInstanceWaitingInRedis() throws Exception {
		// two threads of one instance would hand the lock to each other forever, were the other instance passed by
		AtomicBoolean otherGotIt = new AtomicBoolean();
		AtomicBoolean otherDone = new AtomicBoolean();
		AtomicInteger heldWhileOtherWaited = new AtomicInteger();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger maxInside = new AtomicInteger();
		DistributedLockTemplate other = new DistributedLockTemplate(newClient(), Duration.ofSeconds(30),
				Duration.ofSeconds(5));
		Concurrently.run(3, 60, (thread) -> {
			if (thread == 2) {
				try {
					await().atMost(Duration.ofSeconds(5)).until(() -> ClientProbe.of(this.client).queuedThreads(this.key) == 1);
					other.execute(this.key, () -> otherGotIt.getAndSet(true));
				}
				finally {
					otherDone.set(true);
				}
				return;
			}
			while (!otherDone.get()) {
				this.template.execute(this.key, () -> {
					maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
					if (!queuedInRedis().isEmpty()) {
						heldWhileOtherWaited.incrementAndGet();
					}
					inside.decrementAndGet();
					// so that every release finds the other local thread queued, to hand the lock to
					await().pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(5))
						.until(() -> ClientProbe.of(this.client).queuedThreads(this.key) == 1 || otherDone.get());
					return null;
				});
			}
		});
		assertThat(otherGotIt).isTrue();
		// once the other instance queued, the next release granted it the lock: no local hand-over passed it by
		assertThat(heldWhileOtherWaited.get()).isLessThanOrEqualTo(1);
		assertThat(maxInside.get()).isEqualTo(1);
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void releasesGrantTheLockToTheWaitingInstancesFirstComeFirstServedWithoutRetries() throws Exception {
		// loads the scripts into Redis, so that no EVALSHA below falls back to EVAL (a second call)
		this.template.execute(this.key, () -> null);
		List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
		List<Future<?>> waiters = new ArrayList<>();
		ExecutorService pool = Executors.newFixedThreadPool(3);
		try (LockHolder holder = new LockHolder(this.template.getLock(this.key))) {
			for (String instance : List.of("first", "second", "third")) {
				DistributedLockTemplate waiting = new DistributedLockTemplate(newClient(), Duration.ofSeconds(30),
						Duration.ofSeconds(20));
				int queued = waiters.size() + 1;
				waiters.add(pool.submit(() -> waiting.execute(this.key, () -> order.add(instance))));
				await().atMost(Duration.ofSeconds(5)).until(() -> queuedInRedis().size() == queued);
			}
			long before = scriptCalls();
			holder.close();
			for (Future<?> waiter : waiters) {
				waiter.get(10, TimeUnit.SECONDS);
			}
			assertThat(order).containsExactly("first", "second", "third");
			// four releases, three of them grants; no waiter asked Redis again
			assertThat(scriptCalls() - before).isEqualTo(4);
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void aWaiterThatGivesUpWithdrawsItsPlaceAndIsNeverGrantedTheLock() throws Exception {
		DistributedLockTemplate other = new DistributedLockTemplate(newClient(), Duration.ofSeconds(30),
				Duration.ofMillis(300));
		try (LockHolder holder = new LockHolder(this.template.getLock(this.key))) {
			assertThatThrownBy(() -> other.execute(this.key, () -> null)).isInstanceOf(LockAcquisitionException.class);
			assertThat(queuedInRedis()).isEmpty();
			long before = publishes();
			holder.close();
			assertThat(publishes()).as("no grant to a waiter that left").isEqualTo(before);
		}
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void aGrantToAWaiterThatDiedHoldsTheOthersUpOnlyForTheLeaseItAskedFor() throws Exception {
		DistributedLockTemplate other = new DistributedLockTemplate(newClient(), Duration.ofSeconds(30),
				Duration.ofSeconds(20));
		ExecutorService pool = Executors.newSingleThreadExecutor();
		try (LockHolder holder = new LockHolder(this.template.getLock(this.key))) {
			// a waiter that queued first, asked for a lease of 500 ms, and died: its entry still counts
			long now = SharedRedis.timeMillis();
			redis.opsForHash().put(redisKey(), "q:dead-client:1", "1:" + (now + 60_000) + ":500:1");
			Future<Long> acquiredAt = pool.submit(() -> other.execute(this.key, System::nanoTime));
			await().atMost(Duration.ofSeconds(5)).until(() -> queuedInRedis().size() == 2);
			long releasedAt = System.nanoTime();
			holder.close();
			assertThat(redis.opsForHash().hasKey(redisKey(), "dead-client:1")).as("granted to the dead waiter").isTrue();
			long waited = acquiredAt.get(10, TimeUnit.SECONDS) - releasedAt;
			// the holder's lease was 30 s; the live waiter tries again at least every second
			assertThat(Duration.ofNanos(waited)).isBetween(Duration.ofMillis(400), Duration.ofSeconds(3));
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aWaiterGivingUpAfterItWasGrantedTheLockPassesTheGrantOn() {
		String channel = this.client.getChannel();
		long now = SharedRedis.timeMillis();
		// granted to "late:1" in the same moment it gave up; "next:1" waits behind it
		redis.opsForHash().put(redisKey(), "late:1", "1");
		redis.opsForHash().put(redisKey(), "q:next:1", "5:" + (now + 60_000) + ":30000:7");
		redis.expire(redisKey(), Duration.ofSeconds(30));
		assertThat(redis.execute(ReentrantKind.CANCEL, List.of(redisKey()), "late:1", channel)).isEqualTo(1L);
		assertThat(ScriptResults.withoutToken(redis.opsForHash().entries(redisKey())))
			.containsExactly(Map.entry("next:1", "1"));
		// withdrawing a place that was not granted only deletes the entry
		redis.opsForHash().put(redisKey(), "q:gone:1", "6:" + (now + 60_000) + ":30000:8");
		assertThat(redis.execute(ReentrantKind.CANCEL, List.of(redisKey()), "gone:1", channel)).isEqualTo(0L);
		assertThat(ScriptResults.withoutToken(redis.opsForHash().entries(redisKey())))
			.containsExactly(Map.entry("next:1", "1"));
	}

	@Test
	void aLockKeyWithoutTtlIsNeverMistakenForAcquired() throws Exception {
		// a hash that nobody releases and that never expires: PTTL answers -1 for it, as the scripts answer
		// "acquired"
		redis.opsForHash().put(redisKey(), "persistent-owner:1", "1");
		try {
			Lock lock = this.template.getLock(this.key);
			assertThat(lock.tryLock()).isFalse();
			assertThat(lock.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
			ReadWriteLock readWrite = this.template.getReadWriteLock(this.key);
			assertThat(readWrite.readLock().tryLock()).isFalse();
			assertThat(readWrite.writeLock().tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
			// and the waiter that gave up withdrew its place
			assertThat(redis.<String, String>opsForHash().entries(redisKey())).containsOnlyKeys("persistent-owner:1");
		}
		finally {
			redis.delete(redisKey());
		}
	}

	@Test
	void scriptsThatRedisForgotAreSentAgain() {
		this.template.execute(this.key, () -> null);
		// as after a restart of Redis: EVALSHA answers NOSCRIPT, and the client falls back to EVAL
		redis.execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
		assertThat(this.template.execute(this.key, () -> "after SCRIPT FLUSH")).isEqualTo("after SCRIPT FLUSH");
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	/** The entries of owners queued in Redis for the lock. */
	private List<String> queuedInRedis() {
		return redis.<String, String>opsForHash().keys(redisKey()).stream().filter((field) -> field.startsWith("q:")).toList();
	}

	/** Script calls (EVALSHA and EVAL) the server has run so far. */
	private static long scriptCalls() {
		return commandCalls("eval(?:sha)?");
	}

	private static long publishes() {
		return commandCalls("publish");
	}

	/** Calls the server has run so far of the commands whose names match {@code commands}, from INFO. */
	private static long commandCalls(String commands) {
		return CommandStats.calls(redis, commands);
	}

	@Test
	void aWaiterTakesTheLockWhenACrashedHolderLeaseEnds() {
		// a holder that crashed: its lock is in Redis with a lease, and nobody will publish its release
		redis.opsForHash().put(redisKey(), "crashed-client:1", "1");
		redis.expire(redisKey(), Duration.ofMillis(500));
		long start = System.nanoTime();
		String result = this.template.execute(this.key, () -> "acquired");
		assertThat(result).isEqualTo("acquired");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
	}

	@Test
	void theWatchdogKeepsTheLockPastItsLease() throws Exception {
		assertThat((this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofMillis(300)).interruptible(false)
				.releasedByThread().build()) != null))
			.isTrue();
		String owner = owner(this.client);
		// four leases long, the lock must stay ours the whole time
		await().during(Duration.ofMillis(1200))
			.atMost(Duration.ofSeconds(3))
			.until(() -> redis.opsForHash().hasKey(redisKey(), owner));
		this.client.release(this.key, LockType.REENTRANT);
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void aHardLeaseRunsOutAndTheLateReleaseLeavesTheNextHolderAlone() throws Exception {
		assertThat((this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofMillis(200)).autoRenew(false)
				.interruptible(false).releasedByThread().build()) != null))
			.isTrue();
		RedisLockClient next = newClient();
		AtomicReference<String> nextOwner = new AtomicReference<>();
		Thread nextHolder = new Thread(() -> {
			try {
				assertThat((next.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(30))
						.timeout(Duration.ofSeconds(5)).interruptible(false).releasedByThread()
						.build()) != null)).isTrue();
				nextOwner.set(owner(next));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		nextHolder.start();
		nextHolder.join(10_000);
		assertThat(nextOwner.get()).isNotNull();

		assertThatThrownBy(() -> this.client.release(this.key, LockType.REENTRANT))
			.isInstanceOf(LockLostException.class)
			.hasMessageContaining(this.key)
			.hasMessageContaining("200 ms");
		assertThat(ScriptResults.withoutToken(redis.opsForHash().entries(redisKey())))
			.containsExactly(Map.entry(nextOwner.get(), "1"));
	}

	@Test
	void aLostLockReplacesTheResultOfABodyThatReturned() {
		LockDefinition hardLease = LockDefinition.builder(this.key).lease(Duration.ofMillis(150)).autoRenew(false).build();
		assertThatThrownBy(() -> this.template.execute(hardLease, () -> {
			await().atMost(Duration.ofSeconds(5)).until(() -> !redis.hasKey(redisKey()));
			return "too late";
		})).isInstanceOf(LockLostException.class);
	}

	@Test
	void aBodyExceptionPropagatesUnwrappedWithTheLostLockSuppressed() {
		LockDefinition hardLease = LockDefinition.builder(this.key).lease(Duration.ofMillis(150)).autoRenew(false).build();
		assertThatThrownBy(() -> this.template.execute(hardLease, () -> {
			await().atMost(Duration.ofSeconds(5)).until(() -> !redis.hasKey(redisKey()));
			throw new IOException("checked, from the body");
		})).isInstanceOf(IOException.class)
			.hasMessage("checked, from the body")
			.satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement().isInstanceOf(LockLostException.class));
	}

	@Test
	void theWatchdogNeverExtendsALockThatWasTakenOver() throws Exception {
		assertThat((this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofMillis(300)).interruptible(false)
				.releasedByThread().build()) != null))
			.isTrue();
		redis.delete(redisKey());
		RedisLockClient next = newClient();
		assertThat((next.acquire(LockRequest.builder(this.key).lease(Duration.ofMillis(300)).autoRenew(false)
				.interruptible(false).releasedByThread().build()) != null))
			.isTrue();
		String nextOwner = Owners.current(next);
		// the old holder's watchdog keeps ticking, but must neither extend nor touch the new lock
		await().atMost(Duration.ofSeconds(3)).until(() -> !redis.hasKey(redisKey()));
		assertThatThrownBy(() -> this.client.release(this.key, LockType.REENTRANT))
			.isInstanceOf(LockLostException.class)
			.hasMessageContaining("watchdog");
		assertThatThrownBy(() -> next.release(this.key, LockType.REENTRANT)).isInstanceOf(LockLostException.class);
		assertThat(nextOwner).isNotBlank();
	}

	@Test
	void closingTheClientReleasesWhatItHolds() throws Exception {
		assertThat((this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(30)).interruptible(false)
				.releasedByThread().build()) != null))
			.isTrue();
		this.client.close();
		assertThat(redis.hasKey(redisKey())).isFalse();
		assertThatThrownBy(() -> this.client.release(this.key, LockType.REENTRANT)).isInstanceOf(LockLostException.class);
	}

	@Test
	void theLockViewFollowsTheLockContract() throws Exception {
		Lock lock = this.template.getLock(this.key);
		assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
		assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
		assertThat(lock.tryLock()).isTrue();
		try {
			ExecutorService pool = Executors.newSingleThreadExecutor();
			try {
				assertThat(pool.submit(() -> lock.tryLock(100, TimeUnit.MILLISECONDS)).get()).isFalse();
				Future<?> interrupted = pool.submit(() -> {
					Thread.currentThread().interrupt();
					assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
				});
				interrupted.get();
			}
			finally {
				pool.shutdownNow();
			}
		}
		finally {
			lock.unlock();
		}
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void locksOfOverlappingKeySetsTakenInOppositeOrderNeverDeadlock() throws Exception {
		DistributedLockTemplate other = new DistributedLockTemplate(newClient(), Duration.ofSeconds(30),
				Duration.ofSeconds(30));
		List<LockDefinition> forward = List.of(LockDefinition.of(this.key + ":a"), LockDefinition.of(this.key + ":b"));
		List<LockDefinition> backward = List.of(LockDefinition.of(this.key + ":b"), LockDefinition.of(this.key + ":a"));
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger maxInside = new AtomicInteger();
		Concurrently.run(4, 60, (thread) -> {
			DistributedLockTemplate instance = (thread < 2) ? this.template : other;
			List<LockDefinition> keys = (thread % 2 == 0) ? forward : backward;
			for (int i = 0; i < 30; i++) {
				instance.executeAll(keys, () -> {
					maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
					inside.decrementAndGet();
					return null;
				});
			}
		});
		assertThat(maxInside.get()).isEqualTo(1);
	}

}
