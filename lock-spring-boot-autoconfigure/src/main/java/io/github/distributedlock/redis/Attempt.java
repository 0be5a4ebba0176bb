package io.github.distributedlock.redis;

import io.github.distributedlock.redis.Hold.HoldId;

/**
 * What one acquisition attempt is about: the lock (its key, kind and Redis key), the attempt's owner id in Redis,
 * and the lease it asks for. Every command about the attempt names {@link #owner()}, so a late or repeated one never
 * acts on another attempt.
 *
 * @param id the lock key, its type and the owner (a thread's id, or a negative number for another owner)
 * @param redisKey the lock's Redis key: the key prefix followed by the key
 * @param kind the kind of lock, which runs its scripts
 * @param owner the attempt's owner id in Redis, {@code <client id>:<thread id>/<attempt>} (see
 * {@link HoldAcquirer#newAttempt(long)})
 * @param leaseMillis the lease, in milliseconds
 * @param autoRenew whether the watchdog renews the lease while it is held
 * @param downgradeFrom for a read attempt of an owner that holds the write side (a downgrade: the writer may
 * read), the owner id of that write hold; else empty
 */
record Attempt(HoldId id, String redisKey, LockKind kind, String owner, long leaseMillis, boolean autoRenew,
		String downgradeFrom) {

	/** The lock key as the caller named it. */
	String key() {
		return this.id.key();
	}

}
