package io.github.distributedlock.annotation;

/**
 * The kind of distributed lock a {@link DistributedLock} method or a
 * {@link io.github.distributedlock.core.LockDefinition} asks for.
 *
 * @see io.github.distributedlock.core.DistributedLockTemplate
 */
public enum LockType {

	/**
	 * An exclusive lock that its owner (one thread of one client) may acquire again while holding it;
	 * it is freed when the owner has released it as often as it acquired it.
	 */
	REENTRANT,

	/**
	 * The shared side of a read/write lock: many owners may hold it at once, never while a writer holds
	 * the write side. Reentrant.
	 */
	READ,

	/**
	 * The exclusive side of a read/write lock: excludes every reader and every other writer. Reentrant;
	 * its owner may also take the read side (downgrade).
	 */
	WRITE;

	/**
	 * Returns the name of a lock of this type with {@code permits} permits, the one name the meters (tag
	 * {@code type}), {@code LockLostEvent}, the logs and the {@code distributedlocks} endpoint use.
	 * @param permits the key's permit count: 1 for a lock, more for a semaphore
	 * @return {@code reentrant}, {@code read} or {@code write}; {@code semaphore} for more than one permit (a
	 * semaphore's permits are {@code REENTRANT} holds)
	 */
	public String nameWith(int permits) {
		if (permits > 1) {
			return "semaphore";
		}
		return switch (this) {
			case REENTRANT -> "reentrant";
			case READ -> "read";
			case WRITE -> "write";
		};
	}

}
