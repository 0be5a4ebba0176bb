package io.github.distributedlock.redis;

import java.util.List;
import java.util.Objects;

/**
 * What Redis holds for one lock right now, whoever holds it: what {@link RedisLockInspector#inspect(String)}
 * returns.
 *
 * @param key the lock key, without the key prefix
 * @param redisKey the Redis key
 * @param type {@code "reentrant"}, {@code "read-write"}, {@code "none"} (no key: the lock is free), or
 * {@code "foreign"} (a key of another Redis type, not written by this library, which blocks the lock)
 * @param held whether someone holds the lock (or a placeholder keeps it taken until a minimum hold ends)
 * @param ttlMillis the key's remaining time to live in milliseconds: the lease of the latest holder; 0 when
 * there is no key, -1 for a key without a TTL
 * @param owners the owner ids ({@code <client id>:<thread id>}) holding it: one for a reentrant or write lock,
 * every reader of a read lock (a write holder that also reads is listed once)
 * @param waiting how many owners wait for it in Redis: instances queued for a reentrant lock, writers and
 * readers that claimed a read/write lock; threads queued behind them inside their own instance are not counted
 */
public record RedisLockState(String key, String redisKey, String type, boolean held, long ttlMillis,
		List<String> owners, int waiting) {

	/**
	 * Checks the components.
	 * @param key the lock key, without the key prefix
	 * @param redisKey the Redis key
	 * @param type {@code "reentrant"}, {@code "read-write"}, {@code "none"} (no key: the lock is free), or
	 * @param held whether someone holds the lock (or a placeholder keeps it taken until a minimum hold ends)
	 * @param ttlMillis the key's remaining time to live in milliseconds: the lease of the latest holder; 0 when
	 * @param owners the owner ids ({@code <client id>:<thread id>}) holding it: one for a reentrant or write lock,
	 * @param waiting how many owners wait for it in Redis: instances queued for a reentrant lock, writers and
	 * @throws NullPointerException if a required component is {@code null}
	 */
	public RedisLockState {
		Objects.requireNonNull(key, "key must not be null");
		Objects.requireNonNull(redisKey, "redisKey must not be null");
		Objects.requireNonNull(type, "type must not be null");
		owners = List.copyOf(owners);
	}

}
