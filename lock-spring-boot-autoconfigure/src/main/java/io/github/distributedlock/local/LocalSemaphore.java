package io.github.distributedlock.local;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The state of one semaphore key of a {@link LocalLockStore}: up to {@link #permits()} holders at once, each
 * with a lease of its own, and the threads waiting for a permit, in arrival order (see {@link LocalKey} for the
 * waiting, re-entries and releases).
 * <ul>
 * <li>Waiters are served first come, first served: a permit that frees goes to the waiter that came first, and
 * a newcomer takes a free permit only when nobody waits for it.</li>
 * <li>A holder whose hard lease runs out loses its permit, which frees, as a lock's does; a permit released
 * before its minimum hold ends stays taken, by nobody, until then.</li>
 * <li>A re-entry by a holder takes no second permit (the client re-enters its hold without coming here).</li>
 * <li>Every permit gets a fencing token from the store, so tokens strictly increase per key across permits.</li>
 * </ul>
 */
final class LocalSemaphore extends LocalKey {

	private final int permits;

	/** Holders, and permits kept for a minimum hold: each takes one permit. */
	private final Set<LocalHold> holders = Collections.newSetFromMap(new IdentityHashMap<>());

	LocalSemaphore(String storeKey, LocalLockStore store, int permits) {
		super(storeKey, store);
		this.permits = permits;
	}

	@Override
	int permits() {
		return this.permits;
	}

	@Override
	@Nullable String kindInUse() {
		return (this.holders.isEmpty() && this.waiters.isEmpty()) ? null
				: KeyKinds.of(this.permits, LockType.REENTRANT);
	}

	@Override
	boolean canEnter(KeyRequest acquisition, @Nullable KeyWaiter self) {
		int free = this.permits - this.holders.size();
		if (free <= 0) {
			return false;
		}
		if (self == null) {
			return this.waiters.isEmpty();
		}
		// the first 'free' waiters may go in, in any order; those behind them wait for the next permits
		int ahead = 0;
		for (KeyWaiter waiter : this.waiters) {
			if (waiter == self) {
				return true;
			}
			if (++ahead >= free) {
				return false;
			}
		}
		return false;
	}

	@Override
	LocalHold enter(KeyRequest acquisition) {
		LocalHold hold = new LocalHold(acquisition, this.store.nextToken(), this, System.nanoTime());
		this.holders.add(hold);
		return hold;
	}

	@Override
	Iterable<LocalHold> holds() {
		return this.holders;
	}

	@Override
	void remove(LocalHold hold) {
		if (this.holders.remove(hold)) {
			leave(hold);
		}
	}

}
