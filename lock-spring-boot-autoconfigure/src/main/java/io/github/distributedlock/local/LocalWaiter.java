package io.github.distributedlock.local;

import io.github.distributedlock.annotation.LockType;

/**
 * A thread waiting for a key of a {@link LocalLockStore}, in its key's queue. Guarded by the key's mutex.
 */
final class LocalWaiter {

	final LockType type;

	/** Whether a reader was admitted when an exclusive holder left: it goes in before the next writer. */
	boolean admitted;

	LocalWaiter(LockType type) {
		this.type = type;
	}

}
