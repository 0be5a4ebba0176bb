package io.github.distributedlock.local;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The state of one lock key of a {@link LocalLockStore} used with one permit: its exclusive holder (a reentrant
 * or write lock) or its readers, and the threads waiting for it, in arrival order (see {@link LocalKey} for the
 * waiting, re-entries and releases).
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
final class LocalLock extends LocalKey {

	private @Nullable LocalHold exclusive;

	private final Set<LocalHold> readers = Collections.newSetFromMap(new IdentityHashMap<>());

	/** Readers admitted when an exclusive holder left that have not entered yet: writers wait for them. */
	private int admittedReaders;

	LocalLock(String storeKey, LocalLockStore store) {
		super(storeKey, store);
	}

	@Override
	int permits() {
		return 1;
	}

	@Override
	@Nullable String kindInUse() {
		Boolean reentrant = usedAsReentrant();
		if (reentrant == null) {
			return null;
		}
		return KeyKinds.of(1, reentrant ? LockType.REENTRANT : LockType.WRITE);
	}

	/** Whether the key is held or waited for as a reentrant lock, or as a read/write one; {@code null} if neither. */
	private @Nullable Boolean usedAsReentrant() {
		if (this.exclusive != null) {
			return this.exclusive.type == LockType.REENTRANT;
		}
		if (!this.readers.isEmpty() || this.admittedReaders > 0) {
			return false;
		}
		KeyWaiter first = this.waiters.peekFirst();
		return (first != null) ? first.type == LockType.REENTRANT : null;
	}

	/**
	 * Refuses an acquisition of the other kind than the key's holders or waiters (reentrant vs read/write), as
	 * the lock scripts do in Redis, where each kind keeps different data in the key: one key is never both.
	 * @throws IllegalStateException if the key is in use by the other kind of lock
	 */
	@Override
	void checkKind(KeyRequest acquisition) {
		boolean reentrant = acquisition.type() == LockType.REENTRANT;
		Boolean inUseAsReentrant = usedAsReentrant();
		if (inUseAsReentrant != null && inUseAsReentrant != reentrant) {
			throw new IllegalStateException("Cannot acquire lock '" + acquisition.key() + "' as a "
					+ (reentrant ? "reentrant lock: its key '" + this.storeKey + "' is held as a read/write lock"
							: "read/write lock: its key '" + this.storeKey + "' is held as a reentrant lock")
					+ "; one key cannot be both at once, give each kind of lock keys of its own");
		}
	}

	@Override
	boolean canEnter(KeyRequest acquisition, @Nullable KeyWaiter self) {
		LocalHold holder = this.exclusive;
		if (acquisition.type() == LockType.READ) {
			if (holder != null) {
				// a downgrade; a hold kept for its minimum hold belongs to nobody, not even its former owner
				return !holder.isReleased() && holder.owner.equals(acquisition.owner());
			}
			return (self != null && self.admitted) || firstExclusiveWaiter() == null;
		}
		return holder == null && this.readers.isEmpty() && this.admittedReaders == 0 && firstExclusiveWaiter() == self;
	}

	@Override
	LocalHold enter(KeyRequest acquisition) {
		LocalHold hold = new LocalHold(acquisition, this.store.nextToken(), this, System.nanoTime());
		if (acquisition.type() == LockType.READ) {
			this.readers.add(hold);
		}
		else {
			this.exclusive = hold;
		}
		return hold;
	}

	private @Nullable KeyWaiter firstExclusiveWaiter() {
		for (KeyWaiter waiter : this.waiters) {
			if (waiter.type != LockType.READ) {
				return waiter;
			}
		}
		return null;
	}

	@Override
	void stopWaiting(KeyWaiter waiter) {
		super.stopWaiting(waiter);
		if (waiter.admitted) {
			this.admittedReaders--;
		}
	}

	@Override
	Iterable<LocalHold> holds() {
		LocalHold holder = this.exclusive;
		if (holder == null) {
			return this.readers;
		}
		List<LocalHold> all = new ArrayList<>(1 + this.readers.size());
		all.add(holder);
		all.addAll(this.readers);
		return all;
	}

	@Override
	void remove(LocalHold hold) {
		if (hold == this.exclusive) {
			this.exclusive = null;
			// the readers waiting now go in before the next writer
			for (KeyWaiter waiter : this.waiters) {
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

}
