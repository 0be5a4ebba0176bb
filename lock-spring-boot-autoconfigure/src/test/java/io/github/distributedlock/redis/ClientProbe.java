package io.github.distributedlock.redis;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.redis.Hold.HoldId;
import org.jspecify.annotations.Nullable;

/**
 * What tests read of one run of a {@link RedisLockClient}, as the client knows it (no round trip): its local
 * waiters and queues, and why a hold was lost. Made per question by {@link #of(RedisLockClient)}, so it reads the
 * session current then. Thread-safe.
 *
 * @param parts the run's session
 * @param keyPrefix the client's key prefix
 */
record ClientProbe(ClientSession parts, String keyPrefix) {

	/**
	 * Probes the current session of a client.
	 * @param client the client
	 * @return the probe
	 */
	static ClientProbe of(RedisLockClient client) {
		return new ClientProbe(client.session(), client.redisKey(""));
	}

	/**
	 * Returns how many lock keys have local waiters right now.
	 * @return the number of keys with at least one waiting owner
	 */
	int waitingKeys() {
		return this.parts.notifications.waitingKeys();
	}

	/**
	 * Returns how many owners of this client wait in the local queue of an exclusive lock, behind the one that
	 * holds it or acquires it in Redis.
	 * @param key the lock key
	 * @param type {@link LockType#REENTRANT} or {@link LockType#WRITE}
	 * @return the number of owners queued locally
	 */
	int queuedThreads(String key, LockType type) {
		return this.parts.queuedOwners(this.keyPrefix + key, type);
	}

	/**
	 * Returns how many owners of this client wait in the local queue of a reentrant lock.
	 * @param key the lock key
	 * @return the number of owners queued locally
	 */
	int queuedThreads(String key) {
		return queuedThreads(key, LockType.REENTRANT);
	}

	/**
	 * Returns why a hold of the calling thread was lost, as far as this client knows yet.
	 * @param key the lock key
	 * @param type the lock type
	 * @return the reason, or {@code null} if the thread holds no such lock or it is not known to be lost
	 */
	@Nullable String lostReason(String key, LockType type) {
		Hold hold = this.parts.holds.get(new HoldId(key, type, Thread.currentThread().getId()));
		return (hold != null) ? hold.lostReason() : null;
	}

}
