package io.github.distributedlock.redis;

import java.util.List;
import java.util.Objects;

import io.github.distributedlock.core.LockState;

/**
 * What Redis holds for one lock right now, whoever holds it: what {@link RedisLockInspector#inspect(String)}
 * returns.
 *
 * @param key the lock key, without the key prefix
 * @param redisKey the Redis key
 * @param type {@code "reentrant"}, {@code "read-write"}, {@code "semaphore"}, {@code "none"} (no key: the lock
 * is free), or {@code "foreign"} (a key of another Redis type, not written by this library, which blocks the
 * lock)
 * @param held whether someone holds the lock (or a placeholder keeps it taken until a minimum hold ends)
 * @param ttlMillis the key's remaining time to live in milliseconds: the lease of the latest holder; 0 when
 * there is no key, -1 for a key without a TTL
 * @param owners the owner ids ({@code <client id>:<thread id>/<attempt>}) holding it: one for a reentrant or
 * write lock, every reader of a read lock (a write holder that also reads is listed once), every holder of a
 * semaphore's permits
 * @param waiting how many owners wait for it in Redis: instances queued for a reentrant lock, owners queued for
 * a semaphore, writers and readers that claimed a read/write lock; threads queued behind them inside their own
 * instance are not counted
 * @param holders each owner of {@code owners} with what is left of its own lease in Redis, in milliseconds (the
 * key's TTL for a reentrant lock, whose one holder's lease it is)
 * @param permits the permit count of a semaphore; 1 for any other lock, 0 when there is no key
 */
public record RedisLockState(String key, String redisKey, String type, boolean held, long ttlMillis,
		List<String> owners, int waiting, List<Holder> holders, int permits) implements LockState {

	/**
	 * Checks the components.
	 * @param key the lock key, without the key prefix
	 * @param redisKey the Redis key
	 * @param type the kind of lock, see the record's description
	 * @param held whether someone holds the lock
	 * @param ttlMillis the key's remaining time to live in milliseconds
	 * @param owners the owner ids holding it
	 * @param waiting how many owners wait for it in Redis
	 * @param holders each owner with what is left of its lease
	 * @param permits the permit count of a semaphore, 1 for another lock, 0 for none
	 * @throws NullPointerException if a required component is {@code null}
	 */
	public RedisLockState {
		Objects.requireNonNull(key, "key must not be null");
		Objects.requireNonNull(redisKey, "redisKey must not be null");
		Objects.requireNonNull(type, "type must not be null");
		owners = List.copyOf(owners);
		holders = List.copyOf(holders);
	}

	/**
	 * Creates the state of a lock whose holders' leases are the key's TTL (a reentrant lock, one permit).
	 * @param key the lock key, without the key prefix
	 * @param redisKey the Redis key
	 * @param type the kind of lock
	 * @param held whether someone holds the lock
	 * @param ttlMillis the key's remaining time to live in milliseconds
	 * @param owners the owner ids holding it
	 * @param waiting how many owners wait for it in Redis
	 * @throws NullPointerException if a required component is {@code null}
	 */
	public RedisLockState(String key, String redisKey, String type, boolean held, long ttlMillis, List<String> owners,
			int waiting) {
		this(key, redisKey, type, held, ttlMillis, owners, waiting,
				owners.stream().map((owner) -> new Holder(owner, ttlMillis)).toList(), "none".equals(type) ? 0 : 1);
	}

	/**
	 * One holder of a lock and its own lease.
	 * @param owner the owner id
	 * @param leaseMillis what is left of its lease in Redis, in milliseconds
	 */
	public record Holder(String owner, long leaseMillis) {
	}

}
