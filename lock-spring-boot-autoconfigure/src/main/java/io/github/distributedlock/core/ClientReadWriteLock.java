package io.github.distributedlock.core;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * The {@link ReadWriteLock} view of {@link DistributedLockTemplate#getReadWriteLock(String)}: its two sides.
 *
 * @param readLock the read side
 * @param writeLock the write side
 */
record ClientReadWriteLock(Lock readLock, Lock writeLock) implements ReadWriteLock {
}
