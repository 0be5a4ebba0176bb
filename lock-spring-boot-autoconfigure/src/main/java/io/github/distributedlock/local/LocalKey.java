package io.github.distributedlock.local;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.distributedlock.core.LockLostException;
import org.jspecify.annotations.Nullable;

/**
 * The state of one key of a {@link LocalLockStore}, whatever it is: a {@link LocalLock} (one permit: a reentrant
 * or read/write lock) or a {@link LocalSemaphore} (more permits). A state serves one permit count for its whole
 * life, so that one key is one kind while it is in use. Every change happens under one mutex, and waiters wait on
 * one condition, signalled by every change that may let one of them in; a waiter also wakes when the earliest
 * hard lease or minimum hold among the holders ends, since nobody signals that.
 * <p>
 * Subclasses say who may enter and keep the holders; the waiting, the re-entries, the releases and the losses
 * are the same for every kind, and are here.
 */
abstract class LocalKey {

	/** Longest wait that {@link Condition#awaitNanos} is given: about 290 years without a deadline. */
	static final long FOREVER = Long.MAX_VALUE / 2;

	final String storeKey;

	final LocalLockStore store;

	final ReentrantLock mutex = new ReentrantLock();

	final Condition changed = this.mutex.newCondition();

	/** Acquisitions under way and holds in the state; guarded by the store's map (see {@link LocalLockStore}). */
	int users;

	/** The waiters, first come first; guarded by {@link #mutex}. */
	final Deque<KeyWaiter> waiters = new ArrayDeque<>();

	LocalKey(String storeKey, LocalLockStore store) {
		this.storeKey = storeKey;
		this.store = store;
	}

	/** The state for the first acquisition of a key: a lock for one permit, a semaphore for more. */
	static LocalKey create(String storeKey, LocalLockStore store, int permits) {
		return (permits > 1) ? new LocalSemaphore(storeKey, store, permits) : new LocalLock(storeKey, store);
	}

	/** The permit count this state serves: 1 for a lock. */
	abstract int permits();

	/**
	 * Tells whether an acquisition may use this state: it asks for this state's permit count, or the state is
	 * stale (nothing holds or waits for it any more, and it will leave the store), so the caller tries again
	 * with a fresh state.
	 * @return {@code true} if the permit counts agree, {@code false} if the state is stale
	 * @throws IllegalStateException if the key is in use with another permit count: one key is one kind
	 */
	final boolean accepts(KeyRequest acquisition) {
		if (acquisition.permits() == permits()) {
			return true;
		}
		this.mutex.lock();
		try {
			purge(System.nanoTime());
			String kind = kindInUse();
			if (kind == null) {
				return false;
			}
			throw KeyKinds.mixedUse(acquisition.key(), this.storeKey, kind, acquisition.permits());
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * What the key is in use as, in words with its permit count (such as "a semaphore with 3 permits"), or
	 * {@code null} if nothing holds or waits for it. Called under the mutex.
	 */
	abstract @Nullable String kindInUse();

	/**
	 * Acquires for a new owner (not a re-entry), waiting up to {@code timeout}, first come, first served as
	 * {@link #canEnter} says.
	 * @param timeout {@link Duration#ZERO} tries once, {@code null} waits without limit
	 * @return the new hold, or {@code null} if the timeout passed first
	 * @throws InterruptedException if {@code interruptible} and the thread was interrupted while waiting
	 */
	final @Nullable LocalHold acquire(KeyRequest acquisition, @Nullable Duration timeout, boolean interruptible)
			throws InterruptedException {
		long start = System.nanoTime();
		this.mutex.lock();
		try {
			purge(start);
			checkKind(acquisition);
			if (canEnter(acquisition, null)) {
				return LeaseEnds.watch(this, enter(acquisition));
			}
			if (timeout != null && timeout.isZero()) {
				return null;
			}
			return KeyWait.await(this, acquisition, (timeout == null) ? 0 : start + LocalLockClient.nanos(timeout),
					timeout == null, interruptible);
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Refuses an acquisition that can never enter this state, under the mutex.
	 * @throws IllegalStateException if the key is in use by another kind of lock
	 */
	void checkKind(KeyRequest acquisition) {
	}

	/** Whether the acquisition may enter now; {@code self} is its waiter, {@code null} before it waits. */
	abstract boolean canEnter(KeyRequest acquisition, @Nullable KeyWaiter self);

	/** Makes the acquisition a holder, with a new fencing token. */
	abstract LocalHold enter(KeyRequest acquisition);

	/** Queues a waiter behind those that came before it. */
	KeyWaiter startWaiting(KeyRequest acquisition) {
		KeyWaiter waiter = new KeyWaiter(acquisition.type());
		this.waiters.addLast(waiter);
		return waiter;
	}

	/** Takes a waiter out of the queue, once it entered or gave up. */
	void stopWaiting(KeyWaiter waiter) {
		this.waiters.remove(waiter);
	}

	/** The holds in the state, those kept for their minimum hold included. */
	abstract Iterable<LocalHold> holds();

	/** Whether anybody waits. */
	boolean hasWaiters() {
		return !this.waiters.isEmpty();
	}

	/** How many threads wait for the key; for tests and diagnostics. */
	int waiting() {
		this.mutex.lock();
		try {
			return this.waiters.size();
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Removes the holds whose hard lease or minimum hold has ended, and marks the unreleased ones lost; each
	 * leaves through {@link #remove}.
	 */
	final void purge(long now) {
		List<LocalHold> ended = new ArrayList<>(0);
		for (LocalHold hold : holds()) {
			if (hold.endedAt(now)) {
				ended.add(hold);
			}
		}
		// removed after the walk: a removal changes the collection walked
		for (LocalHold hold : ended) {
			if (!hold.isReleased()) {
				hold.markLost(hold.hardLeaseRanOut());
			}
			remove(hold);
		}
	}

	/** Takes a hold out of the state, which then {@linkplain #leave leaves} the store. */
	abstract void remove(LocalHold hold);

	/** The end of a hold's part in the state: wakes the waiters, and drops the key when nobody uses it. */
	final void leave(LocalHold hold) {
		hold.leaveState();
		this.changed.signalAll();
		this.store.leave(this.storeKey, this);
	}

	/**
	 * Re-enters a hold of its owner.
	 * @return {@code false} if the hold was released meanwhile (by a handle closed on another thread): the
	 * caller acquires anew
	 * @throws LockLostException if the hold's hard lease ran out
	 */
	final boolean reenter(LocalHold hold, long leaseNanos, long holdAtLeastNanos) {
		this.mutex.lock();
		try {
			long now = System.nanoTime();
			purge(now);
			if (hold.isReleased()) {
				return false;
			}
			String lost = hold.lostReason();
			if (lost != null) {
				throw new LockLostException(hold.key, lost + "; it cannot be re-entered");
			}
			return hold.reenter(now, leaseNanos, holdAtLeastNanos);
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Releases one hold count; the last one frees the hold, or keeps it taken by nobody until the minimum hold
	 * ends.
	 * @throws IllegalMonitorStateException if every hold was released already
	 * @throws LockLostException if the hold was lost before this release; nobody else's hold is touched
	 */
	final void release(LocalHold hold) {
		this.mutex.lock();
		try {
			long now = System.nanoTime();
			purge(now);
			LocalHold.Release step = hold.releaseOne(now);
			if (step == LocalHold.Release.ALREADY_RELEASED) {
				throw new IllegalMonitorStateException("Lock '" + hold.key + "' (" + hold.type + ") was released already");
			}
			String lost = hold.lostReason();
			if (lost != null) {
				throw new LockLostException(hold.key, lost);
			}
			if (step == LocalHold.Release.LAST) {
				remove(hold);
			}
		}
		finally {
			this.mutex.unlock();
		}
	}

	/** Takes a hold out of the state at once, whatever its count, and marks it lost for {@code reason}. */
	final void discard(LocalHold hold, String reason) {
		this.mutex.lock();
		try {
			hold.markLost(reason);
			if (hold.inState()) {
				remove(hold);
			}
		}
		finally {
			this.mutex.unlock();
		}
	}

	/** Tells whether the key is held, kept for a minimum hold, or waited for; forgets holds that have ended. */
	final boolean inUse() {
		this.mutex.lock();
		try {
			purge(System.nanoTime());
			return holds().iterator().hasNext() || hasWaiters();
		}
		finally {
			this.mutex.unlock();
		}
	}

}
