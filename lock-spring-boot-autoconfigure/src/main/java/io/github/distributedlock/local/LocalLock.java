package io.github.distributedlock.local;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockLostException;
import org.jspecify.annotations.Nullable;

/**
 * The state of one lock key of a {@link LocalLockStore}: its exclusive holder (a reentrant or write lock) or
 * its readers, and the threads waiting for it, in arrival order. Every change happens under one mutex, and
 * waiters wait on one condition, signalled by every change that may let one of them in; a waiter also wakes
 * when the earliest hard lease or minimum hold among the holders ends, since nobody signals that.
 * <ul>
 * <li>Exclusive waiters are served first come, first served.</li>
 * <li>A waiting writer makes new readers wait behind it (writers are not starved); the readers waiting
 * when an exclusive holder leaves are admitted together before the next writer (readers are not starved
 * either).</li>
 * <li>The exclusive holder may also take the read lock (a downgrade).</li>
 * <li>A key in use as a reentrant lock refuses read/write acquisitions, and the other way round, at once
 * ({@link IllegalStateException}), as Redis does.</li>
 * </ul>
 */
final class LocalLock {

	/** Longest wait that {@link Condition#awaitNanos} is given: about 290 years without a deadline. */
	private static final long FOREVER = Long.MAX_VALUE / 2;

	private final String storeKey;

	private final LocalLockStore store;

	private final ReentrantLock mutex = new ReentrantLock();

	private final Condition changed = this.mutex.newCondition();

	private @Nullable LocalHold exclusive;

	private final Set<LocalHold> readers = Collections.newSetFromMap(new IdentityHashMap<>());

	private final Deque<Waiter> waiters = new ArrayDeque<>();

	/** Readers admitted when an exclusive holder left that have not entered yet: writers wait for them. */
	private int admittedReaders;

	/** Acquisitions under way and holds in the state; guarded by the store's map (see {@link LocalLockStore}). */
	int users;

	LocalLock(String storeKey, LocalLockStore store) {
		this.storeKey = storeKey;
		this.store = store;
	}

	/**
	 * Acquires for a new owner (not a re-entry), waiting up to {@code timeout}.
	 * @param timeout {@link Duration#ZERO} tries once, {@code null} waits without limit
	 * @return the new hold, or {@code null} if the timeout passed first
	 * @throws InterruptedException if {@code interruptible} and the thread was interrupted while waiting
	 */
	@Nullable LocalHold acquire(Acquisition acquisition, @Nullable Duration timeout, boolean interruptible)
			throws InterruptedException {
		long start = System.nanoTime();
		long deadline = (timeout == null) ? 0 : start + LocalLockClient.nanos(timeout);
		this.mutex.lock();
		try {
			purge(start);
			checkKind(acquisition);
			if (canEnter(acquisition, null)) {
				return enter(acquisition, null);
			}
			if (timeout != null && timeout.isZero()) {
				return null;
			}
			Waiter waiter = new Waiter(acquisition.type());
			this.waiters.addLast(waiter);
			boolean interrupted = false;
			try {
				while (true) {
					long now = System.nanoTime();
					long remaining = (timeout == null) ? FOREVER : deadline - now;
					if (remaining <= 0) {
						return null;
					}
					try {
						this.changed.awaitNanos(Math.min(remaining, untilFirstEnd(now)));
					}
					catch (InterruptedException ex) {
						if (interruptible) {
							throw ex;
						}
						interrupted = true;
					}
					purge(System.nanoTime());
					if (canEnter(acquisition, waiter)) {
						return enter(acquisition, waiter);
					}
				}
			}
			finally {
				stopWaiting(waiter);
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Re-enters a hold of its owner.
	 * @return {@code false} if the hold was released meanwhile (by a handle closed on another thread): the
	 * caller acquires anew
	 * @throws LockLostException if the hold's hard lease ran out
	 */
	boolean reenter(LocalHold hold, long leaseNanos, long holdAtLeastNanos) {
		this.mutex.lock();
		try {
			long now = System.nanoTime();
			purge(now);
			if (hold.released) {
				return false;
			}
			if (hold.lostReason != null) {
				throw new LockLostException(hold.key, hold.lostReason + "; it cannot be re-entered");
			}
			hold.reenter(now, leaseNanos, holdAtLeastNanos);
			return true;
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Releases one hold count; the last one frees the lock, or keeps it taken by nobody until the minimum hold
	 * ends.
	 * @throws IllegalMonitorStateException if every hold was released already
	 * @throws LockLostException if the hold was lost before this release; nobody else's hold is touched
	 */
	void release(LocalHold hold) {
		this.mutex.lock();
		try {
			long now = System.nanoTime();
			purge(now);
			if (hold.released) {
				throw new IllegalMonitorStateException("Lock '" + hold.key + "' (" + hold.type + ") was released already");
			}
			if (--hold.count > 0) {
				if (hold.lostReason != null) {
					throw new LockLostException(hold.key, hold.lostReason);
				}
				return;
			}
			boolean kept = hold.keptAfterRelease(now);
			if (hold.lostReason != null) {
				throw new LockLostException(hold.key, hold.lostReason);
			}
			if (!kept) {
				remove(hold);
			}
		}
		finally {
			this.mutex.unlock();
		}
	}

	/** Takes a hold out of the lock at once, whatever its count, and marks it lost for {@code reason}. */
	void discard(LocalHold hold, String reason) {
		this.mutex.lock();
		try {
			hold.markLost(reason);
			if (hold.inState) {
				remove(hold);
			}
		}
		finally {
			this.mutex.unlock();
		}
	}

	/**
	 * Tells whether the lock is held, kept for its minimum hold, or waited for; forgets holds that have ended.
	 */
	boolean inUse() {
		this.mutex.lock();
		try {
			purge(System.nanoTime());
			return this.exclusive != null || !this.readers.isEmpty() || !this.waiters.isEmpty();
		}
		finally {
			this.mutex.unlock();
		}
	}

	/** How many threads wait for the lock; for tests and diagnostics. */
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
	 * Refuses an acquisition of the other kind than the key's holders or waiters (reentrant vs read/write), as
	 * the lock scripts do in Redis, where each kind keeps different data in the key: one key is never both.
	 * @throws IllegalStateException if the key is in use by the other kind of lock
	 */
	private void checkKind(Acquisition acquisition) {
		boolean reentrant = acquisition.type() == LockType.REENTRANT;
		Boolean inUseAsReentrant = null;
		if (this.exclusive != null) {
			inUseAsReentrant = this.exclusive.type == LockType.REENTRANT;
		}
		else if (!this.readers.isEmpty() || this.admittedReaders > 0) {
			inUseAsReentrant = false;
		}
		else if (!this.waiters.isEmpty()) {
			inUseAsReentrant = this.waiters.peekFirst().type == LockType.REENTRANT;
		}
		if (inUseAsReentrant != null && inUseAsReentrant != reentrant) {
			throw new IllegalStateException("Cannot acquire lock '" + acquisition.key() + "' as a "
					+ (reentrant ? "reentrant lock: its key '" + this.storeKey + "' is held as a read/write lock"
							: "read/write lock: its key '" + this.storeKey + "' is held as a reentrant lock")
					+ "; one key cannot be both at once, give each kind of lock keys of its own");
		}
	}

	private boolean canEnter(Acquisition acquisition, @Nullable Waiter self) {
		LocalHold holder = this.exclusive;
		if (acquisition.type() == LockType.READ) {
			if (holder != null) {
				// a downgrade; a hold kept for its minimum hold belongs to nobody, not even its former owner
				return !holder.released && holder.owner.equals(acquisition.owner());
			}
			return (self != null && self.admitted) || firstExclusiveWaiter() == null;
		}
		return holder == null && this.readers.isEmpty() && this.admittedReaders == 0 && firstExclusiveWaiter() == self;
	}

	private LocalHold enter(Acquisition acquisition, @Nullable Waiter waiter) {
		LocalHold hold = new LocalHold(acquisition, this.store.nextToken(), this, System.nanoTime());
		if (acquisition.type() == LockType.READ) {
			this.readers.add(hold);
		}
		else {
			this.exclusive = hold;
		}
		return hold;
	}

	private @Nullable Waiter firstExclusiveWaiter() {
		for (Waiter waiter : this.waiters) {
			if (waiter.type != LockType.READ) {
				return waiter;
			}
		}
		return null;
	}

	private void stopWaiting(Waiter waiter) {
		this.waiters.remove(waiter);
		if (waiter.admitted) {
			this.admittedReaders--;
		}
		// whoever entered or gave up, those behind it may now go in (the next exclusive waiter, readers that a
		// waiting writer held back, a writer that waited for admitted readers)
		this.changed.signalAll();
	}

	/** Removes the holds whose hard lease or minimum hold has ended, and marks the unreleased ones lost. */
	private void purge(long now) {
		LocalHold holder = this.exclusive;
		if (holder != null && holder.endedAt(now)) {
			if (!holder.released) {
				holder.markLost(holder.hardLeaseRanOut());
			}
			remove(holder);
		}
		for (Iterator<LocalHold> it = this.readers.iterator(); it.hasNext();) {
			LocalHold reader = it.next();
			if (reader.endedAt(now)) {
				if (!reader.released) {
					reader.markLost(reader.hardLeaseRanOut());
				}
				it.remove();
				leave(reader);
			}
		}
	}

	private void remove(LocalHold hold) {
		if (hold == this.exclusive) {
			this.exclusive = null;
			// the readers waiting now go in before the next writer
			for (Waiter waiter : this.waiters) {
				if (waiter.type == LockType.READ && !waiter.admitted) {
					waiter.admitted = true;
					this.admittedReaders++;
				}
			}
		}
		else {
			this.readers.remove(hold);
		}
		leave(hold);
	}

	private void leave(LocalHold hold) {
		hold.inState = false;
		this.changed.signalAll();
		this.store.leave(this.storeKey, this);
	}

	/** Nanoseconds until the first hard lease or minimum hold among the holders ends. */
	private long untilFirstEnd(long now) {
		long first = FOREVER;
		LocalHold holder = this.exclusive;
		if (holder != null && holder.expires) {
			first = Math.min(first, holder.deadline - now);
		}
		for (LocalHold reader : this.readers) {
			if (reader.expires) {
				first = Math.min(first, reader.deadline - now);
			}
		}
		return Math.max(first, TimeUnit.MICROSECONDS.toNanos(100));
	}

	/** A thread waiting for the lock. */
	private static final class Waiter {

		final LockType type;

		/** Whether it was admitted when an exclusive holder left: it goes in before the next writer. */
		boolean admitted;

		Waiter(LockType type) {
			this.type = type;
		}

	}

}
