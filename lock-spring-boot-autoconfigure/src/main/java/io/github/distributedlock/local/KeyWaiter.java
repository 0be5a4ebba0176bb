package io.github.distributedlock.local;

import io.github.distributedlock.annotation.LockType;

/**
 * A thread waiting for a key of a {@link LocalLockStore}, in its key's queue. Guarded by the key's mutex.
 */
final class KeyWaiter {

	final LockType type;

	/** Whether a reader was admitted when an exclusive holder left: it goes in before the next writer. */
	boolean admitted;

	KeyWaiter(LockType type) {
		this.type = type;
	}

}
