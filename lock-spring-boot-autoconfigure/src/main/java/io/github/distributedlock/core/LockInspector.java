package io.github.distributedlock.core;

/**
 * Reads and force-releases locks in a lock store, whoever holds them: what the {@code distributedlocks} Actuator
 * endpoint needs of a store. Implementations are thread-safe.
 */
public interface LockInspector {

	/**
	 * Reads one lock, whoever holds it.
	 * @param key the lock key, without the key prefix
	 * @return its state
	 * @throws DistributedLockException if the store could not be reached
	 */
	LockState inspect(String key);

	/**
	 * Deletes one lock, whoever holds it, and wakes its waiters; its holder learns the loss from its watchdog.
	 * @param key the lock key, without the key prefix
	 * @return {@code true} if a lock was deleted, {@code false} if there was none
	 * @throws DistributedLockException if the store could not be reached, or the key holds a value the library
	 * did not write (then nothing is deleted)
	 */
	boolean forceRelease(String key);

}
