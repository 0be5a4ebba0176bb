package io.github.distributedlock.core;

import java.time.Duration;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.annotation.LockType;

/**
 * The {@link ReadWriteLock} view of {@link DistributedLockTemplate#getReadWriteLock(String)}: its two sides.
 *
 * @param readLock the read side
 * @param writeLock the write side
 */
record ClientReadWriteLock(Lock readLock, Lock writeLock) implements ReadWriteLock {

	/**
	 * The two sides of the lock {@code key}, each a {@link ClientLock} with the given lease.
	 * @throws IllegalArgumentException if the key is blank
	 */
	static ClientReadWriteLock of(LockClient client, String key, Duration lease) {
		return new ClientReadWriteLock(new ClientLock(client, key, LockType.READ, lease),
				new ClientLock(client, key, LockType.WRITE, lease));
	}

}
