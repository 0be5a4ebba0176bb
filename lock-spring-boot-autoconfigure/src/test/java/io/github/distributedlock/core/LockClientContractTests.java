package io.github.distributedlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.LockHolder;
import io.github.distributedlock.test.OnThread;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

/**
 * The semantics every {@link LockClient} keeps, as README's "How the locks behave", "Read/write locks",
 * "Fencing tokens and lock handles" and "Minimum hold" describe them, and what each refuses (one key is one kind
 * of lock); each store runs them through a subclass, so the local store passes only what Redis passes.
 * Two clients of one store stand for two instances of an application.
 */
@SuppressWarnings("try") // a resource that only holds a lock for the block is not referenced in it
public abstract class LockClientContractTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	/**
	 * How long a test waits for what a release (or a lease end) should bring about at once: far less than the
	 * waiters' own timeouts, so a waiter that nobody woke fails the test instead of succeeding on its last try.
	 */
	private static final long PATIENCE_SECONDS = 5;

	private final List<LockClient> clients = new ArrayList<>();

	/** The first instance. */
	protected LockClient first;

	/** The second instance, on the same store. */
	protected LockClient second;

	/** A key of this test alone. */
	protected String key;

	/**
	 * Creates a client on the store under test, the same store every time within a test.
	 * @return a new client; the base class closes it after the test
	 */
	protected abstract LockClient createClient();

	/**
	 * Tells whether the store keeps no state of a lock any more.
	 * @param key the lock key
	 * @return {@code true} if nothing of the lock is left in the store
	 */
	protected abstract boolean isGone(String key);

	/**
	 * Counts the owners that the store knows to be waiting for a lock (the threads blocked in
	 * {@link LockClient#acquire}, each of its own client here).
	 * @param key the lock key
	 * @return the number of waiting owners
	 */
	protected abstract int waitingOwners(String key);

	/**
	 * Tells whether the store can count its waiting owners ({@link #waitingOwners}) and serves exclusive waiters
	 * first come, first served; a store that cannot (Redlock: waiters retry on several independent servers) skips
	 * the tests that need it.
	 * @return {@code true} unless overridden
	 */
	protected boolean queuesWaiters() {
		return true;
	}

	/** Skips a test of what the store does not support (declared by its {@link LockCapabilities}). */
	private void assumeSupports(LockCapability capability) {
		assumeTrue(this.first.capabilities().supports(capability), () -> "the store '"
				+ this.first.capabilities().store() + "' has no " + capability.description());
	}

	private void assumeQueuesWaiters() {
		assumeTrue(queuesWaiters(), "the store neither counts nor queues its waiting owners");
	}

	@BeforeEach
	void openClients() {
		this.first = newClient();
		this.second = newClient();
		this.key = "contract:" + UUID.randomUUID();
	}

	@AfterEach
	void closeClients() {
		this.clients.forEach(LockClient::close);
	}

	private LockClient newClient() {
		LockClient client = createClient();
		this.clients.add(client);
		return client;
	}

	private static DistributedLockTemplate views(LockClient client) {
		return new DistributedLockTemplate(client, LEASE, Duration.ofSeconds(5));
	}

	private @Nullable LockHandle acquire(LockClient client, LockType type, Duration lease, boolean autoRenew,
			@Nullable Duration timeout) throws InterruptedException {
		return client.acquire(LockRequest.builder(this.key).type(type).lease(lease).autoRenew(autoRenew)
				.timeout(timeout).build());
	}

	/**
	 * Waits until the store knows {@code count} waiting owners; on a store that does not count them (see
	 * {@link #queuesWaiters()}) a test goes on at once, and whatever it checks must hold either way.
	 */
	private void awaitWaiters(int count) {
		if (!queuesWaiters()) {
			return;
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> waitingOwners(this.key) == count);
	}

	private boolean triesOnce(LockClient client, LockType type) throws InterruptedException {
		LockHandle handle = acquire(client, type, LEASE, true, Duration.ZERO);
		if (handle != null) {
			handle.close();
		}
		return handle != null;
	}

	@Test
	void neverTwoHoldersAndNoLostUpdateAcrossTwoInstancesWithManyThreads() throws Exception {
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger maxInside = new AtomicInteger();
		AtomicInteger counter = new AtomicInteger();
		int threads = 8;
		int iterations = 30;
		Concurrently.run(threads, 120, (thread) -> {
			DistributedLockTemplate instance = views((thread % 2 == 0) ? this.first : this.second);
			for (int i = 0; i < iterations; i++) {
				instance.execute(LockDefinition.builder(this.key).acquireTimeout(Duration.ofSeconds(60)).build(), () -> {
					maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
					int read = counter.get();
					Thread.yield(); // the window in which an unguarded writer loses an update
					counter.set(read + 1);
					inside.decrementAndGet();
					return null;
				});
			}
		});
		assertThat(maxInside).hasValue(1);
		assertThat(counter).hasValue(threads * iterations);
		assertThat(isGone(this.key)).isTrue();
	}

	@Test
	void theOwnerReentersAndTheLockIsFreedWhenItsHoldsReachZero() throws Exception {
		LockHandle outer = acquire(this.first, LockType.REENTRANT, LEASE, true, Duration.ZERO);
		LockHandle inner = acquire(this.first, LockType.REENTRANT, LEASE, true, Duration.ZERO);
		assertThat(outer).isNotNull();
		assertThat(inner).isNotNull();
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		assertThat(this.first.isHeldByCurrentThread(this.key, LockType.REENTRANT)).isTrue();
		inner.close();
		assertThat(triesOnce(this.second, LockType.REENTRANT)).as("held by the outer hold").isFalse();
		outer.close();
		assertThat(this.first.isHeldByCurrentThread(this.key, LockType.REENTRANT)).isFalse();
		assertThat(isGone(this.key)).isTrue();
		assertThat(triesOnce(this.second, LockType.REENTRANT)).isTrue();
	}

	@Test
	void onlyTheOwnerReleasesAndARefusedReleaseChangesNothing() throws Exception {
		try (LockHolder holder = new LockHolder(views(this.first).getLock(this.key))) {
			assertThatThrownBy(() -> this.first.release(this.key, LockType.REENTRANT))
				.isInstanceOf(IllegalMonitorStateException.class)
				.hasMessageContaining(this.key);
			assertThatThrownBy(() -> this.second.release(this.key, LockType.REENTRANT))
				.isInstanceOf(IllegalMonitorStateException.class);
			assertThat(triesOnce(this.second, LockType.REENTRANT)).isFalse();
		}
		assertThat(isGone(this.key)).isTrue();
	}

	@Test
	void aReleaseWakesAWaiterLongBeforeTheHoldersLeaseEnds() throws Exception {
		try (LockHolder holder = new LockHolder(views(this.first).getLock(this.key));
				OnThread<Long> waiter = OnThread.start("waiter", () -> {
					LockHandle handle = acquire(this.second, LockType.REENTRANT, LEASE, true, Duration.ofSeconds(30));
					long acquiredAt = System.nanoTime();
					handle.close();
					return acquiredAt;
				})) {
			awaitWaiters(1);
			long releasedAt = System.nanoTime();
			holder.close();
			// the holder's lease is 30 s and renewed: only the release can wake the waiter this soon
			assertThat(Duration.ofNanos(waiter.get(30) - releasedAt)).isLessThan(Duration.ofSeconds(3));
		}
	}

	@Test
	void theAcquireTimeoutEndsTheWaitAndZeroTriesOnce() throws Exception {
		try (LockHolder holder = new LockHolder(views(this.first).getLock(this.key))) {
			long start = System.nanoTime();
			assertThat(acquire(this.second, LockType.REENTRANT, LEASE, true, Duration.ofMillis(300))).isNull();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(300),
					Duration.ofMillis(1500));
			start = System.nanoTime();
			assertThat(acquire(this.second, LockType.REENTRANT, LEASE, true, Duration.ZERO)).isNull();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1000));
		}
	}

	@Test
	void exclusiveWaitersAreServedFirstComeFirstServed() throws Exception {
		assumeQueuesWaiters();
		List<String> order = new CopyOnWriteArrayList<>();
		List<OnThread<?>> waiters = new ArrayList<>();
		try (LockHolder holder = new LockHolder(views(this.first).getLock(this.key))) {
			for (String name : List.of("one", "two", "three")) {
				int queued = waiters.size() + 1;
				LockClient instance = newClient();
				waiters.add(OnThread.start(name, () -> {
					try (LockHandle handle = acquire(instance, LockType.REENTRANT, LEASE, true, Duration.ofSeconds(30))) {
						assertThat(handle).isNotNull();
						order.add(name);
					}
					return null;
				}));
				awaitWaiters(queued);
			}
		}
		for (OnThread<?> waiter : waiters) {
			waiter.get(PATIENCE_SECONDS);
			waiter.close();
		}
		assertThat(order).containsExactly("one", "two", "three");
	}

	@Test
	void anInterruptEndsAnInterruptibleWaitAndOnlyFlagsAnUninterruptibleOne() throws Exception {
		assumeQueuesWaiters();
		try (LockHolder holder = new LockHolder(views(this.first).getLock(this.key))) {
			try (OnThread<Boolean> interruptible = OnThread.start("interruptible",
					() -> acquire(this.second, LockType.REENTRANT, LEASE, true, null) != null)) {
				awaitWaiters(1);
				interruptible.thread().interrupt();
				assertThatThrownBy(() -> interruptible.get(10)).isInstanceOf(InterruptedException.class);
			}
			awaitWaiters(0);
			try (OnThread<Boolean> uninterruptible = OnThread.start("uninterruptible", () -> {
				LockHandle handle = this.second.acquire(LockRequest.builder(this.key).lease(LEASE)
						.timeout(Duration.ofSeconds(30)).interruptible(false).build());
				// cleared before the release: a Redis command fails on an interrupted thread
				boolean flagged = Thread.interrupted();
				if (handle != null) {
					handle.close();
				}
				return handle != null && flagged;
			})) {
				awaitWaiters(1);
				uninterruptible.thread().interrupt();
				holder.close();
				assertThat(uninterruptible.get(PATIENCE_SECONDS)).as("acquired, with the interrupt flag set again").isTrue();
			}
		}
	}

	@Test
	void aHardLeaseRunsOutAndTheLateReleaseIsLostAndLeavesTheNextHolderAlone() throws Exception {
		long start = System.nanoTime();
		LockHandle expiring = acquire(this.first, LockType.REENTRANT, Duration.ofMillis(200), false, Duration.ZERO);
		assertThat(expiring).isNotNull();
		LockHandle next = acquire(this.second, LockType.REENTRANT, LEASE, true, Duration.ofSeconds(30));
		assertThat(next).as("taken once the hard lease ran out").isNotNull();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(150),
				Duration.ofSeconds(PATIENCE_SECONDS));
		assertThat(expiring.isLost()).isTrue();
		assertThatThrownBy(expiring::checkHeld).isInstanceOf(LockLostException.class);
		assertThatThrownBy(() -> this.first.release(this.key, LockType.REENTRANT))
			.isInstanceOfSatisfying(LockLostException.class, (ex) -> assertThat(ex.getKey()).isEqualTo(this.key))
			.hasMessageContaining("200 ms");
		assertThat(next.isLost()).isFalse();
		assertThat(triesOnce(newClient(), LockType.REENTRANT)).as("the next holder still holds it").isFalse();
		next.close();
		assertThat(isGone(this.key)).isTrue();
	}

	@Test
	void anAutoRenewedLockIsNotTakenPastItsLease() throws Exception {
		LockHandle handle = acquire(this.first, LockType.REENTRANT, Duration.ofMillis(300), true, Duration.ZERO);
		assertThat(handle).isNotNull();
		try (OnThread<Boolean> other = OnThread.start("other",
				() -> acquire(this.second, LockType.REENTRANT, LEASE, true, Duration.ofMillis(1200)) != null)) {
			// four leases long, nobody else gets it
			assertThat(other.get(10)).isFalse();
		}
		assertThat(handle.isLost()).isFalse();
		handle.close();
		assertThat(isGone(this.key)).isTrue();
	}

	@Test
	void readersShareAndAWriterExcludesReadersAndWriters() throws Exception {
		assumeSupports(LockCapability.READ_WRITE);
		CyclicBarrier bothInside = new CyclicBarrier(2);
		try (OnThread<Integer> readerA = OnThread.start("reader-a", () -> readWhile(this.first, bothInside));
				OnThread<Integer> readerB = OnThread.start("reader-b", () -> readWhile(this.second, bothInside))) {
			// each reader waits inside for the other: both return only if they held the lock at once
			assertThat(List.of(readerA.get(20), readerB.get(20))).containsExactlyInAnyOrder(0, 1);
		}
		try (LockHolder writer = new LockHolder(views(this.first).getReadWriteLock(this.key).writeLock())) {
			assertThat(triesOnce(this.second, LockType.READ)).isFalse();
			assertThat(triesOnce(this.second, LockType.WRITE)).isFalse();
			assertThat(triesOnce(this.first, LockType.WRITE)).as("another thread of the writer's instance").isFalse();
		}
		try (LockHolder reader = new LockHolder(views(this.first).getReadWriteLock(this.key).readLock())) {
			assertThat(triesOnce(this.second, LockType.WRITE)).isFalse();
			assertThat(triesOnce(this.second, LockType.READ)).isTrue();
		}
		assertThat(isGone(this.key)).isTrue();
	}

	private int readWhile(LockClient client, CyclicBarrier others) throws Exception {
		try (LockHandle handle = acquire(client, LockType.READ, LEASE, true, Duration.ofSeconds(30))) {
			assertThat(handle).isNotNull();
			return others.await(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void theWriterMayDowngradeAndAReaderIsRefusedAnUpgradeAtOnce() throws Exception {
		assumeSupports(LockCapability.READ_WRITE);
		LockHandle write = acquire(this.first, LockType.WRITE, LEASE, true, Duration.ZERO);
		LockHandle read = acquire(this.first, LockType.READ, LEASE, true, Duration.ZERO);
		assertThat(write).isNotNull();
		assertThat(read).as("a downgrade").isNotNull();
		write.close();
		assertThat(triesOnce(this.second, LockType.READ)).as("readers share with the downgraded holder").isTrue();
		assertThat(triesOnce(this.second, LockType.WRITE)).isFalse();
		long start = System.nanoTime();
		assertThatThrownBy(() -> acquire(this.first, LockType.WRITE, LEASE, true, Duration.ofSeconds(10)))
			.isInstanceOf(IllegalMonitorStateException.class)
			.hasMessageContaining(this.key);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("refused, not waited for").isLessThan(Duration.ofSeconds(2));
		read.close();
		assertThat(isGone(this.key)).isTrue();
	}

	@Test
	void aWaitingWriterMakesNewReadersWaitBehindIt() throws Exception {
		assumeSupports(LockCapability.READ_WRITE);
		try (LockHolder reader = new LockHolder(views(this.first).getReadWriteLock(this.key).readLock());
				OnThread<Boolean> writer = OnThread.start("writer", () -> {
					try (LockHandle handle = acquire(this.second, LockType.WRITE, LEASE, true, Duration.ofSeconds(30))) {
						return handle != null;
					}
				})) {
			awaitWaiters(1);
			long waitingSince = System.nanoTime();
			// past the few milliseconds in which a store may still let readers in (5 ms in Redis)
			await().atMost(Duration.ofSeconds(1)).until(() -> System.nanoTime() - waitingSince > 50_000_000L);
			LockClient lateInstance = newClient();
			assertThat(acquire(lateInstance, LockType.READ, LEASE, true, Duration.ofMillis(300)))
				.as("a new reader while a writer waits").isNull();
			reader.close();
			assertThat(writer.get(PATIENCE_SECONDS)).isTrue();
		}
		assertThat(isGone(this.key)).isTrue();
	}

	@Test
	void theReadersWaitingWhenAWriterReleasesEnterBeforeTheNextWriter() throws Exception {
		assumeSupports(LockCapability.READ_WRITE);
		int readers = 3;
		CyclicBarrier allInside = new CyclicBarrier(readers);
		List<OnThread<Integer>> waitingReaders = new ArrayList<>();
		OnThread<Boolean> nextWriter = null;
		try (LockHolder writer = new LockHolder(views(this.first).getReadWriteLock(this.key).writeLock())) {
			for (int i = 0; i < readers; i++) {
				waitingReaders.add(OnThread.start("reader-" + i, () -> readWhile(this.second, allInside)));
				awaitWaiters(i + 1);
			}
			LockClient nextWriterInstance = newClient();
			nextWriter = OnThread.start("next-writer", () -> {
				try (LockHandle handle = acquire(nextWriterInstance, LockType.WRITE, LEASE, true, Duration.ofSeconds(30))) {
					return handle != null;
				}
			});
			awaitWaiters(readers + 1);
		}
		// all readers inside at once: none of them was left behind the next writer
		for (OnThread<Integer> reader : waitingReaders) {
			reader.get(PATIENCE_SECONDS);
			reader.close();
		}
		assertThat(nextWriter.get(PATIENCE_SECONDS)).isTrue();
		nextWriter.close();
	}

	@Test
	void fencingTokensStrictlyIncreaseAcrossOwnersAndTypesAndAReentrySeesItsOuterToken() throws Exception {
		List<Long> tokens = new ArrayList<>();
		for (LockClient client : List.of(this.first, this.second, this.first)) {
			for (LockType type : this.first.capabilities().supports(LockCapability.READ_WRITE)
					? List.of(LockType.REENTRANT, LockType.WRITE, LockType.READ) : List.of(LockType.REENTRANT)) {
				try (LockHandle outer = acquire(client, type, LEASE, true, Duration.ZERO);
						LockHandle inner = acquire(client, type, LEASE, true, Duration.ZERO)) {
					assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
					tokens.add(outer.fencingToken());
				}
			}
		}
		assertThat(tokens).isSorted().doesNotHaveDuplicates().allMatch((token) -> token > 0);
	}

	@Test
	void aKeyIsOneKindOfLockAndTheOtherKindIsRefusedAtOnceWhoeverAsks() throws Exception {
		assumeSupports(LockCapability.READ_WRITE);
		LockHandle reentrant = acquire(this.first, LockType.REENTRANT, LEASE, true, Duration.ZERO);
		assertThat(reentrant).isNotNull();
		assertRefused(this.first, LockType.READ, "held as a reentrant lock");
		assertRefused(this.second, LockType.WRITE, "held as a reentrant lock");
		assertRefused(this.second, LockType.READ, "held as a reentrant lock");
		assertThat(reentrant.isLost()).isFalse();
		reentrant.close();
		assertThat(isGone(this.key)).isTrue();
		LockHandle write = acquire(this.first, LockType.WRITE, LEASE, true, Duration.ZERO);
		assertThat(write).isNotNull();
		assertRefused(this.first, LockType.REENTRANT, "held as a read/write lock");
		assertRefused(this.second, LockType.REENTRANT, "held as a read/write lock");
		write.close();
		LockHandle read = acquire(this.second, LockType.READ, LEASE, true, Duration.ZERO);
		assertThat(read).isNotNull();
		assertRefused(this.first, LockType.REENTRANT, "held as a read/write lock");
		read.close();
		assertThat(isGone(this.key)).isTrue();
		assertThat(triesOnce(this.first, LockType.REENTRANT)).as("free again, for either kind").isTrue();
	}

	/** An acquisition that waits up to 10 s is refused, at once. */
	private void assertRefused(LockClient client, LockType type, String heldAs) {
		long start = System.nanoTime();
		assertThatThrownBy(() -> acquire(client, type, LEASE, true, Duration.ofSeconds(10)))
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("'" + this.key + "'")
			.hasMessageContaining(heldAs);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("refused, not waited for")
			.isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void aDowngradeAndEachNewReaderGetGreaterTokens() throws Exception {
		assumeSupports(LockCapability.READ_WRITE);
		LockHandle write = acquire(this.first, LockType.WRITE, LEASE, true, Duration.ZERO);
		LockHandle downgrade = acquire(this.first, LockType.READ, LEASE, true, Duration.ZERO);
		write.close();
		LockHandle other = acquire(this.second, LockType.READ, LEASE, true, Duration.ZERO);
		assertThat(List.of(write.fencingToken(), downgrade.fencingToken(), other.fencingToken())).isSorted()
			.doesNotHaveDuplicates()
			.allMatch((token) -> token > 0);
		downgrade.close();
		other.close();
		assertThat(isGone(this.key)).isTrue();
	}

	@Test
	void aMinimumHoldOfAWriteLockKeepsReadersAndWritersOutAfterAnEarlyRelease() throws Exception {
		assumeSupports(LockCapability.READ_WRITE);
		assumeSupports(LockCapability.MINIMUM_HOLD);
		long start = System.nanoTime();
		LockHandle write = this.first.acquire(LockRequest.builder(this.key).type(LockType.WRITE).lease(LEASE)
				.holdAtLeast(Duration.ofMillis(800)).build());
		assertThat(write).isNotNull();
		write.close();
		assertThat(triesOnce(this.first, LockType.WRITE)).as("not even the same thread").isFalse();
		assertThat(triesOnce(this.second, LockType.READ)).isFalse();
		LockHandle read = acquire(this.second, LockType.READ, LEASE, true, Duration.ofSeconds(30));
		assertThat(read).isNotNull();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(700),
				Duration.ofSeconds(PATIENCE_SECONDS));
		assertThat(read.fencingToken()).isGreaterThan(write.fencingToken());
		read.close();
		assertThat(isGone(this.key)).isTrue();
	}

	@Test
	void aMinimumHoldOfAReadLockKeepsWritersOutButNotReaders() throws Exception {
		assumeSupports(LockCapability.READ_WRITE);
		assumeSupports(LockCapability.MINIMUM_HOLD);
		long start = System.nanoTime();
		LockHandle read = this.first.acquire(LockRequest.builder(this.key).type(LockType.READ).lease(LEASE)
				.holdAtLeast(Duration.ofMillis(800)).build());
		assertThat(read).isNotNull();
		read.close();
		assertThat(triesOnce(this.second, LockType.READ)).as("readers still share").isTrue();
		assertThat(triesOnce(this.second, LockType.WRITE)).isFalse();
		assertRefused(this.second, LockType.REENTRANT, "held as a read/write lock");
		LockHandle write = acquire(this.second, LockType.WRITE, LEASE, true, Duration.ofSeconds(30));
		assertThat(write).isNotNull();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(700),
				Duration.ofSeconds(PATIENCE_SECONDS));
		write.close();
		assertThat(isGone(this.key)).isTrue();
	}

	@Test
	void aHandleMayBeClosedByAnotherThreadOnceAndASecondCloseDoesNothing() throws Exception {
		LockHandle handle = acquire(this.first, LockType.REENTRANT, LEASE, true, Duration.ZERO);
		assertThat(handle).isNotNull();
		try (OnThread<Void> closer = OnThread.start("closer", () -> {
			handle.close();
			handle.close();
			return null;
		})) {
			closer.get(10);
		}
		assertThat(this.first.isHeldByCurrentThread(this.key, LockType.REENTRANT)).isFalse();
		assertThat(isGone(this.key)).isTrue();
		assertThat(triesOnce(this.second, LockType.REENTRANT)).isTrue();
	}

	@Test
	void aMinimumHoldKeepsTheLockTakenAfterAnEarlyReleaseEvenFromItsOwner() throws Exception {
		assumeSupports(LockCapability.MINIMUM_HOLD);
		long start = System.nanoTime();
		LockHandle handle = this.first.acquire(LockRequest.builder(this.key).lease(LEASE)
				.holdAtLeast(Duration.ofMillis(800)).build());
		assertThat(handle).isNotNull();
		handle.close();
		assertThat(this.first.isHeldByCurrentThread(this.key, LockType.REENTRANT)).isFalse();
		assertThat(triesOnce(this.first, LockType.REENTRANT)).as("not even the same thread").isFalse();
		assertThat(triesOnce(this.second, LockType.REENTRANT)).isFalse();
		LockHandle next = acquire(this.second, LockType.REENTRANT, LEASE, true, Duration.ofSeconds(30));
		assertThat(next).isNotNull();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(700),
				Duration.ofSeconds(PATIENCE_SECONDS));
		assertThat(next.fencingToken()).isGreaterThan(handle.fencingToken());
		next.close();
		assertThat(isGone(this.key)).isTrue();
	}

	@Test
	void closingAClientFreesItsLocksAndTheirLaterReleaseIsLost() throws Exception {
		assertThat(acquire(this.first, LockType.REENTRANT, LEASE, true, Duration.ZERO)).isNotNull();
		this.first.close();
		assertThat(isGone(this.key)).isTrue();
		assertThat(triesOnce(this.second, LockType.REENTRANT)).isTrue();
		assertThatThrownBy(() -> this.first.release(this.key, LockType.REENTRANT)).isInstanceOf(LockLostException.class);
		assertThatThrownBy(() -> acquire(this.first, LockType.REENTRANT, LEASE, true, Duration.ZERO))
			.isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("closed");
	}

	@Test
	void theLockViewsFollowTheirJavaContracts() throws Exception {
		Lock lock = views(this.first).getLock(this.key);
		assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
		assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
		assertThat(lock.tryLock()).isTrue();
		try (OnThread<Boolean> other = OnThread.start("other", () -> lock.tryLock(100, TimeUnit.MILLISECONDS))) {
			assertThat(other.get(10)).isFalse();
		}
		lock.unlock();
		assertThat(isGone(this.key)).isTrue();
	}

}
