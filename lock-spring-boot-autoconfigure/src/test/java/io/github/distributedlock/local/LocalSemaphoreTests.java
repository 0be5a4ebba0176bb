package io.github.distributedlock.local;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.OnThread;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Semaphores of the local store ({@code permits > 1}): at most that many owners inside at once, every permit
 * used, tokens strictly increasing per key across permits, waiters served in arrival order, a permit freed when
 * its hard lease ends, re-entries without a second permit, the minimum hold, asynchronous owners, and one key
 * one kind. Two clients of one store stand for two instances; owners that are not threads come from
 * {@link LocalLockClient#newAsyncOwner()}, so one test thread can be many owners.
 */
class LocalSemaphoreTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final int PERMITS = 3;

	private final LocalLockStore store = new LocalLockStore();

	private final LocalLockClient first = new LocalLockClient(this.store, "lock:");

	private final LocalLockClient second = new LocalLockClient(this.store, "lock:");

	private final String key = "sem:" + UUID.randomUUID();

	@AfterEach
	void close() {
		this.first.close();
		this.second.close();
	}

	/** A permit for a new owner of {@code client}, tried once; a failure of the future is thrown as it is. */
	private @Nullable LockHandle tryTake(LocalLockClient client, int permits) {
		try {
			return take(client, permits, LEASE, true, Duration.ZERO, Duration.ZERO).join();
		}
		catch (CompletionException ex) {
			throw (RuntimeException) ex.getCause();
		}
	}

	private CompletableFuture<@Nullable LockHandle> take(LocalLockClient client, int permits, Duration lease,
			boolean autoRenew, Duration holdAtLeast, Duration timeout) {
		return client.acquireAsync(LockRequest.builder(this.key).permits(permits).lease(lease).autoRenew(autoRenew)
				.holdAtLeast(holdAtLeast).timeout(timeout).owner(client.newAsyncOwner()).build());
	}

	private int waiting() {
		return this.store.waiting("lock:" + this.key);
	}

	@Test
	void manyThreadsOfTwoClientsNeverHaveMoreThanThePermitsInsideUseThemAllAndGetIncreasingTokens() throws Exception {
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger mostInside = new AtomicInteger();
		AtomicLong lastTokenBeforeAnAcquisition = new AtomicLong();
		Set<Long> tokens = ConcurrentHashMap.newKeySet();
		List<String> violations = new CopyOnWriteArrayList<>();
		int rounds = 60;
		Concurrently.run(16, 60, (thread) -> {
			LocalLockClient client = (thread % 2 == 0) ? this.first : this.second;
			for (int i = 0; i < rounds; i++) {
				// every token handed out before this acquisition started is below the token it gets
				long before = lastTokenBeforeAnAcquisition.get();
				LockHandle handle = client.acquire(LockRequest.builder(this.key).permits(PERMITS).lease(LEASE)
						.timeout(Duration.ofSeconds(30)).build());
				assertThat(handle).isNotNull();
				int now = inside.incrementAndGet();
				mostInside.accumulateAndGet(now, Math::max);
				if (now > PERMITS) {
					violations.add(now + " inside");
				}
				if (handle.fencingToken() <= before || !tokens.add(handle.fencingToken())) {
					violations.add("token " + handle.fencingToken() + " after " + before);
				}
				lastTokenBeforeAnAcquisition.accumulateAndGet(handle.fencingToken(), Math::max);
				LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(300)); // the work under the permit
				inside.decrementAndGet();
				handle.close();
			}
		});
		assertThat(violations).isEmpty();
		assertThat(mostInside.get()).as("every permit used at once").isEqualTo(PERMITS);
		assertThat(tokens).hasSize(16 * rounds);
		assertThat(this.store.contains("lock:" + this.key)).isFalse();
	}

	@Test
	void thePermitsAdmitSoManyOwnersAndTheNextWaitsForARelease() throws Exception {
		List<LockHandle> holders = new ArrayList<>();
		for (int i = 0; i < PERMITS; i++) {
			holders.add(tryTake((i % 2 == 0) ? this.first : this.second, PERMITS));
		}
		assertThat(holders).doesNotContainNull();
		assertThat(tryTake(this.second, PERMITS)).as("no permit left").isNull();
		CompletableFuture<@Nullable LockHandle> next = take(this.second, PERMITS, LEASE, true, Duration.ZERO,
				Duration.ofSeconds(30));
		await().atMost(Duration.ofSeconds(10)).until(() -> waiting() == 1);
		holders.remove(0).close();
		LockHandle granted = next.get(5, TimeUnit.SECONDS);
		assertThat(granted).isNotNull();
		assertThat(granted.fencingToken()).isGreaterThan(holders.get(1).fencingToken());
		assertThat(this.second.heldLocks()).filteredOn((held) -> held.key().equals(this.key))
			.extracting(HeldLock::permits)
			.containsOnly(PERMITS);
		granted.close();
		holders.forEach(LockHandle::close);
		assertThat(this.store.contains("lock:" + this.key)).isFalse();
	}

	@Test
	void waitersGetTheFreedPermitsInTheOrderTheyAsked() throws Exception {
		List<LockHandle> holders = new ArrayList<>();
		for (int i = 0; i < PERMITS; i++) {
			holders.add(tryTake(this.first, PERMITS));
		}
		List<Integer> order = new CopyOnWriteArrayList<>();
		List<OnThread<Void>> waiters = new ArrayList<>();
		int count = 8;
		for (int i = 0; i < count; i++) {
			int number = i;
			LocalLockClient client = (i % 2 == 0) ? this.first : this.second;
			waiters.add(OnThread.start("waiter-" + i, () -> {
				try (LockHandle handle = client.acquire(LockRequest.builder(this.key).permits(PERMITS).lease(LEASE)
						.timeout(Duration.ofSeconds(30)).build())) {
					assertThat(handle).isNotNull();
					order.add(number);
				}
				return null;
			}));
			// the next one asks only once this one waits
			await().atMost(Duration.ofSeconds(10)).until(() -> waiting() == number + 1);
		}
		// one permit goes round the waiters; the other two stay held
		holders.remove(0).close();
		for (OnThread<Void> waiter : waiters) {
			waiter.get(10);
		}
		assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
		holders.forEach(LockHandle::close);
	}

	@Test
	void aNewcomerDoesNotTakeAPermitFreedForAWaiter() throws Exception {
		List<LockHandle> holders = new ArrayList<>();
		for (int i = 0; i < PERMITS; i++) {
			holders.add(tryTake(this.first, PERMITS));
		}
		CompletableFuture<@Nullable LockHandle> waiter = take(this.second, PERMITS, LEASE, true, Duration.ZERO,
				Duration.ofSeconds(30));
		await().atMost(Duration.ofSeconds(10)).until(() -> waiting() == 1);
		for (int round = 0; round < 20 && !waiter.isDone(); round++) {
			holders.remove(0).close();
			// the freed permit is the waiter's, whether it has entered yet or not
			assertThat(tryTake(this.first, PERMITS)).as("a newcomer barging in").isNull();
			holders.add(waiter.get(5, TimeUnit.SECONDS));
			waiter = take(this.second, PERMITS, LEASE, true, Duration.ZERO, Duration.ofSeconds(30));
			await().atMost(Duration.ofSeconds(10)).until(() -> waiting() == 1);
		}
		waiter.cancel(true);
		holders.forEach(LockHandle::close);
	}

	@Test
	void aPermitWhoseHardLeaseRunsOutFreesAndTheOthersAreUntouched() throws Exception {
		LockHandle expiring = take(this.first, PERMITS, Duration.ofMillis(300), false, Duration.ZERO, Duration.ZERO)
			.join();
		LockHandle kept1 = tryTake(this.first, PERMITS);
		LockHandle kept2 = tryTake(this.second, PERMITS);
		assertThat(tryTake(this.second, PERMITS)).isNull();
		long start = System.nanoTime();
		LockHandle next = take(this.second, PERMITS, LEASE, true, Duration.ZERO, Duration.ofSeconds(10))
			.get(5, TimeUnit.SECONDS);
		assertThat(next).as("the expired permit went to the waiter").isNotNull();
		assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(3));
		assertThat(expiring.whenLost().toCompletableFuture().get(5, TimeUnit.SECONDS).getKey()).isEqualTo(this.key);
		assertThatThrownBy(expiring::close).isInstanceOf(LockLostException.class);
		assertThat(kept1.isLost()).isFalse();
		assertThat(kept2.isLost()).isFalse();
		assertThat(tryTake(this.first, PERMITS)).as("still three holders").isNull();
		kept1.close();
		kept2.close();
		next.close();
	}

	@Test
	void aReentryTakesNoSecondPermitAndTheLastReleaseFreesIt() throws Exception {
		LockHandle outer = this.first.acquire(LockRequest.builder(this.key).permits(PERMITS).lease(LEASE)
				.interruptible(false).build());
		LockHandle inner = this.first.acquire(LockRequest.builder(this.key).permits(PERMITS).lease(LEASE)
				.interruptible(false).build());
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		assertThat(this.first.heldLocks()).singleElement().satisfies((held) -> {
			assertThat(held.holdCount()).isEqualTo(2);
			assertThat(held.permits()).isEqualTo(PERMITS);
		});
		LockHandle other1 = tryTake(this.second, PERMITS);
		LockHandle other2 = tryTake(this.second, PERMITS);
		assertThat(other1).isNotNull();
		assertThat(other2).as("the re-entry left this permit free").isNotNull();
		assertThat(tryTake(this.second, PERMITS)).isNull();
		inner.close();
		assertThat(tryTake(this.second, PERMITS)).as("the outer hold keeps its permit").isNull();
		outer.close();
		LockHandle freed = tryTake(this.second, PERMITS);
		assertThat(freed).isNotNull();
		freed.close();
		other1.close();
		other2.close();
	}

	@Test
	void aMinimumHoldKeepsThePermitTakenUntilItsEnd() throws Exception {
		long start = System.nanoTime();
		LockHandle brief = take(this.first, 2, LEASE, true, Duration.ofMillis(500), Duration.ZERO).join();
		LockHandle other = tryTake(this.second, 2);
		brief.close();
		assertThat(tryTake(this.second, 2)).as("the released permit is kept for its minimum hold").isNull();
		LockHandle next = take(this.second, 2, LEASE, true, Duration.ZERO, Duration.ofSeconds(10))
			.get(5, TimeUnit.SECONDS);
		assertThat(next).isNotNull();
		assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
		next.close();
		other.close();
	}

	@Test
	void aKeyInUseIsRefusedToAnotherPermitCountOrKindOfLockNamingTheKeyAndBothCounts() throws Exception {
		LockHandle semaphore = tryTake(this.first, PERMITS);
		assertThatThrownBy(() -> tryTake(this.second, 5)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("Lock '" + this.key + "' is a semaphore with 3 permits; this acquisition asks for 5");
		assertThatThrownBy(() -> this.second.acquire(LockRequest.builder(this.key).lease(LEASE).interruptible(false)
				.build()))
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("is a semaphore with 3 permits; this acquisition asks for 1");
		assertThatThrownBy(() -> this.second.acquire(LockRequest.builder(this.key).type(LockType.READ).lease(LEASE)
				.interruptible(false).build()))
			.isInstanceOf(IllegalStateException.class);
		// the holder itself, re-entering with another count
		LockHandle owned = this.first.acquire(LockRequest.builder(this.key).permits(PERMITS).lease(LEASE)
				.interruptible(false).build());
		assertThatThrownBy(() -> this.first.acquire(LockRequest.builder(this.key).permits(4).lease(LEASE)
				.interruptible(false).build()))
			.isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("is a semaphore with 3 permits; this acquisition asks for 4");
		owned.close();
		semaphore.close();
		LockHandle lock = this.first.acquire(LockRequest.builder(this.key).lease(LEASE).interruptible(false).build());
		assertThat(lock).as("a released key may become another kind").isNotNull();
		assertThatThrownBy(() -> tryTake(this.second, PERMITS)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("is a reentrant lock (1 permit); this acquisition asks for 3");
		lock.close();
		LockHandle read = this.first.acquire(LockRequest.builder(this.key).type(LockType.READ).lease(LEASE)
				.interruptible(false).build());
		assertThatThrownBy(() -> tryTake(this.second, PERMITS)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("is a read/write lock (1 permit); this acquisition asks for 3");
		read.close();
	}

	@Test
	void asynchronousOwnersTakePermitsAndAWaitingOneIsGrantedByARelease() throws Exception {
		List<LockHandle> holders = new ArrayList<>();
		for (int i = 0; i < PERMITS; i++) {
			holders.add(take(this.first, PERMITS, LEASE, true, Duration.ZERO, Duration.ofSeconds(30))
				.get(5, TimeUnit.SECONDS));
		}
		assertThat(holders).doesNotContainNull();
		CompletableFuture<@Nullable LockHandle> waiting = take(this.second, PERMITS, LEASE, true, Duration.ZERO,
				Duration.ofSeconds(30));
		await().atMost(Duration.ofSeconds(10)).until(() -> waiting() == 1);
		assertThat(waiting).isNotDone();
		holders.remove(0).close();
		LockHandle granted = waiting.get(5, TimeUnit.SECONDS);
		assertThat(granted).isNotNull();
		assertThat(granted.fencingToken()).isGreaterThan(holders.get(holders.size() - 1).fencingToken());
		granted.close();
		holders.forEach(LockHandle::close);
		assertThat(this.store.contains("lock:" + this.key)).isFalse();
	}

}
