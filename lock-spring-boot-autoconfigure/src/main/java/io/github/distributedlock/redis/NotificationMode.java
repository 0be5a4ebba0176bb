package io.github.distributedlock.redis;

import java.util.Objects;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * How release notifications and grants travel between the clients of one Redis ({@code distributed-lock.notifications}).
 * Every client of the same locks must use the same mode: a client waiting in one mode does not hear releases
 * published in the other, and wakes only at its timed tries.
 */
public enum NotificationMode {

	/**
	 * Chosen when the client starts: {@link #SHARDED} on a Redis Cluster of Redis 7.0 or later (or Valkey) reached
	 * through Lettuce, {@link #CLASSIC} otherwise (standalone and Sentinel Redis, Redis 6.2, Jedis, or a server whose
	 * version could not be read then).
	 */
	AUTO,

	/**
	 * {@code PUBLISH}/{@code SUBSCRIBE} on {@code <key-prefix>__released} and {@code <key-prefix>__released:<client id>}:
	 * one subscription per client. On a Redis Cluster each message is broadcast to every node over the cluster bus.
	 */
	CLASSIC,

	/**
	 * {@code SPUBLISH}/{@code SSUBSCRIBE} (Redis 7.0+ Cluster, Valkey) on {@code <key-prefix>__released{<tag>}} and
	 * {@code <key-prefix>__released{<tag>}:<client id>}, where the hash tag puts the channel in the hash slot of the
	 * lock's key: a message stays in the shard that owns the lock. A client subscribes, on the node that owns it, to
	 * the channels of each slot it waits on, and drops them a few seconds after its last waiter there is done. Needs
	 * Lettuce and a Redis Cluster.
	 */
	SHARDED;

	/**
	 * Resolves {@link #AUTO} to the mode this Redis and client library call for, with one script round trip to read
	 * the server's version on a Lettuce cluster; {@link #CLASSIC} and {@link #SHARDED} are returned as they are,
	 * after a check that sharded notifications can run here. Blocks for at most the connection's command timeout.
	 * @param connectionFactory the connections the locks use
	 * @param keyPrefix the locks' key prefix (the version script runs on a key under it, which it does not touch)
	 * @return {@link #CLASSIC} or {@link #SHARDED}
	 * @throws IllegalArgumentException if this is {@link #SHARDED} and the factory is not a Lettuce factory
	 * configured for a Redis Cluster
	 */
	public NotificationMode resolve(RedisConnectionFactory connectionFactory, String keyPrefix) {
		Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		return NotificationChannels.resolve(this, connectionFactory, keyPrefix);
	}

}
