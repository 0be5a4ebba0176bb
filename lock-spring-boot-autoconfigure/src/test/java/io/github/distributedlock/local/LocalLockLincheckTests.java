package io.github.distributedlock.local;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LincheckScenarios;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

import static io.github.distributedlock.core.LincheckScenarios.call;

/**
 * Lincheck checks of the local store's lock ({@code distributed-lock.store=local}): {@link LocalLockStore} and its
 * {@link LocalLock} key state, with the mutex, the condition its waiters sleep on, and the key's state made and
 * dropped as owners come and go. Each Lincheck thread is one owner of one reentrant lock key that tries the lock
 * (a re-entry when it holds it), releases one hold, or (in the hand-written scenarios) waits for the lock. Runs
 * are checked against {@link Model}: one holder at a time (a grant while another owner holds is reported as
 * "two holders"), re-entries counted (only the last release frees the lock), and, in the scenarios where owners
 * start waiting in a known order, grants in that order ({@link InOrder}).
 * <p>
 * Stress mode only: Lincheck's model checker (3.7) reports the waits on the key's {@code ReentrantLock} and
 * {@code Condition} as livelocks ("all unfinished threads are in livelock") in runs that stress mode, and the
 * store's own tests, complete; with its standard-library analysis off it still does.
 * <p>
 * Mutations these tests catch (each made by hand, seen to fail, then reverted): {@link LocalLock#canEnter} letting
 * in an owner that is not the first waiter ({@code firstExclusiveWaiter() == self} dropped: a try barges past a
 * waiter); {@link LocalKey#release} freeing the lock at an inner release of a re-entered hold (two holders).
 */
@Param(name = "owner", gen = ThreadIdGen.class)
public class LocalLockLincheckTests {

	private static final int OWNERS = 4;

	private static final String KEY = "k";

	private static final String STORE_KEY = "lock:" + KEY;

	private final LocalLockStore store = new LocalLockStore();

	private final LocalHoldEvents events = new LocalHoldEvents();

	/** Each owner's hold, written only by its own thread. */
	private final LocalHold[] holds = new LocalHold[OWNERS];

	/** Each owner's holds, re-entries included, written only by its own thread. */
	private final int[] counts = new int[OWNERS];

	/** Owners that hold the lock now, as they see it. */
	private final AtomicInteger holders = new AtomicInteger();

	/** The owner that acquired the lock last, -1 for none. */
	private final AtomicInteger last = new AtomicInteger(-1);

	/** The owner tries the lock once; an owner that holds it re-enters it. */
	@Operation
	public String tryLock(@Param(name = "owner") int owner) throws InterruptedException {
		LocalHold held = this.holds[owner];
		if (held != null) {
			if (!held.lock.reenter(held, Duration.ofSeconds(30).toNanos(), 0)) {
				return "released meanwhile";
			}
			this.counts[owner]++;
			return "reentered";
		}
		LocalHold hold = this.store.acquire(request(owner), Duration.ZERO, false);
		return (hold != null) ? enter(owner, hold) : "busy";
	}

	/** The owner waits for the lock, without a deadline; only in scenarios where the holder releases. */
	public String lock(int owner) throws InterruptedException {
		LocalHold hold = this.store.acquire(request(owner), null, false);
		return (hold != null) ? enter(owner, hold) : "timed out";
	}

	/** Waits until {@code count} owners wait for the lock: orders the waiters of a scenario. */
	public void awaitWaiters(int count) {
		while (this.store.waiting(STORE_KEY) < count) {
			Thread.onSpinWait();
		}
	}

	/** The owner releases one hold. */
	@Operation
	public String unlock(@Param(name = "owner") int owner) {
		LocalHold hold = this.holds[owner];
		if (hold == null) {
			return "not holding";
		}
		if (--this.counts[owner] > 0) {
			hold.lock.release(hold);
			return "inner";
		}
		this.holds[owner] = null;
		this.holders.decrementAndGet();
		hold.lock.release(hold);
		return "released";
	}

	private KeyRequest request(int owner) {
		return new KeyRequest(KEY, STORE_KEY, LockType.REENTRANT, 1, "owner-" + owner, owner, 30_000, true, 0,
				this.events);
	}

	private String enter(int owner, LocalHold hold) {
		this.holds[owner] = hold;
		this.counts[owner] = 1;
		int previous = this.last.getAndSet(owner);
		return (this.holders.incrementAndGet() == 1) ? "acquired after " + previous : "two holders";
	}

	@Test
	void oneReentrantHolderUnderStress() {
		new StressOptions().iterations(10)
			.invocationsPerIteration(500)
			.threads(3)
			.actorsPerThread(4)
			.actorsBefore(0)
			.actorsAfter(0)
			.minimizeFailedScenario(false)
			.sequentialSpecification(Model.class)
			.check(getClass());
	}

	@Test
	void waitersAreGrantedInArrivalOrderUnderStress() {
		new StressOptions().iterations(0)
			.invocationsPerIteration(1000)
			.minimizeFailedScenario(false)
			.sequentialSpecification(InOrder.class)
			.addCustomScenario(twoWaitersInOrder())
			.addCustomScenario(waiterBehindAReentrantHolder())
			.check(getClass());
	}

	/** Owner 0 holds; owner 1 starts waiting, then owner 2; owner 0 releases: 1 is granted, then 2. */
	private static org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario twoWaitersInOrder() {
		return LincheckScenarios.of(LocalLockLincheckTests.class)
			.initial(call("tryLock", 0))
			.thread(call("awaitWaiters", 2), call("unlock", 0))
			.thread(call("lock", 1), call("unlock", 1))
			.thread(call("awaitWaiters", 1), call("lock", 2), call("unlock", 2))
			.build();
	}

	/** Owner 0 holds and re-enters while owner 1 waits: 1 is granted only after 0's last release. */
	private static org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario waiterBehindAReentrantHolder() {
		return LincheckScenarios.of(LocalLockLincheckTests.class)
			.initial(call("tryLock", 0))
			.thread(call("tryLock", 0), call("unlock", 0), call("awaitWaiters", 1), call("unlock", 0))
			.thread(call("lock", 1), call("unlock", 1))
			.thread(call("tryLock", 2), call("unlock", 2))
			.build();
	}

	/**
	 * What the lock promises, one operation at a time: one holder, whose re-entries are counted and whose last
	 * release frees the lock. A wait for a held lock cannot be placed at a moment the lock is held ("blocked"
	 * matches no real result), so it is placed after the release that let it in.
	 */
	public static class Model {

		final int[] counts = new int[OWNERS];

		int holder = -1;

		int last = -1;

		public String tryLock(int owner) {
			if (this.counts[owner] > 0) {
				this.counts[owner]++;
				return "reentered";
			}
			return (this.holder == -1) ? enter(owner, this.last) : "busy";
		}

		public String lock(int owner) {
			return (this.holder == -1) ? enter(owner, this.last) : "blocked";
		}

		public void awaitWaiters(int count) {
		}

		public String unlock(int owner) {
			if (this.counts[owner] == 0) {
				return "not holding";
			}
			if (--this.counts[owner] > 0) {
				return "inner";
			}
			this.holder = -1;
			return "released";
		}

		String enter(int owner, int previous) {
			this.holder = owner;
			this.counts[owner] = 1;
			this.last = owner;
			return "acquired after " + previous;
		}

	}

	/**
	 * {@link Model} for the hand-written scenarios, in which owner {@code n} starts waiting {@code n}-th
	 * ({@code awaitWaiters} orders them): a waiting owner is granted right after the owner before it.
	 */
	public static class InOrder extends Model {

		@Override
		public String lock(int owner) {
			return (this.holder == -1) ? enter(owner, owner - 1) : "blocked";
		}

	}

}
