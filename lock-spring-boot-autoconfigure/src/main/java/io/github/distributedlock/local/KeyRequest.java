package io.github.distributedlock.local;

import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;

/**
 * What one acquisition asks of a {@link LocalKey}: who, which lock, how many permits the key has, and with
 * which lease and minimum hold.
 *
 * @param key the lock key as the caller named it
 * @param storeKey the key in the store: the key prefix followed by {@code key}
 * @param type the lock type
 * @param permits the key's permit count: 1 for a lock, more for a semaphore
 * @param owner the owner, {@code <client id>:<thread id>}
 * @param ownerId the owner: the id of the acquiring thread, or a negative number for an owner that is not a thread
 * @param leaseMillis the lease in milliseconds
 * @param autoRenew whether the lease lasts until the release
 * @param holdAtLeastNanos the minimum hold in nanoseconds, 0 for none
 * @param events where the hold's acquisition, release and loss are told
 */
record KeyRequest(String key, String storeKey, LockType type, int permits, String owner, long ownerId,
		long leaseMillis, boolean autoRenew, long holdAtLeastNanos, LocalHoldEvents events) {

	long leaseNanos() {
		return TimeUnit.MILLISECONDS.toNanos(this.leaseMillis);
	}

}
