package io.github.distributedlock.redis;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubListener;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The one Lettuce cluster pub/sub connection of a {@link ShardedSubscription}, made on first need and again after
 * a failed attempt; Lettuce opens a connection per node it is used on, and reconnects them. A failed attempt is one
 * WARN for a series of them, and the connection that ends the series says at INFO how many failed. Loaded only
 * with Lettuce. Thread-safe; {@link #connect()} is called from one thread at a time.
 */
final class ShardedConnection implements AutoCloseable {

	/** Logs as {@link NotificationListener}, the category the documentation names for these messages. */
	private static final Log logger = LogFactory.getLog(NotificationListener.LOG_CATEGORY);

	private final LettuceConnectionFactory connectionFactory;

	private final RedisClusterPubSubListener<String, String> listener;

	private volatile @Nullable StatefulRedisClusterPubSubConnection<String, String> connection;

	private volatile boolean closed;

	/** Failed attempts in a row; changed by {@link #connect()} only. */
	private int failures;

	/**
	 * Prepares the connection; nothing is connected yet.
	 * @param connectionFactory the Lettuce factory of a Redis Cluster, whose client makes the connection
	 * @param listener gets the messages and subscription events of every node connection
	 */
	ShardedConnection(LettuceConnectionFactory connectionFactory, RedisClusterPubSubListener<String, String> listener) {
		this.connectionFactory = connectionFactory;
		this.listener = listener;
	}

	/**
	 * Tells whether the connection was made.
	 * @return {@code true} once made, until closed
	 */
	boolean isConnected() {
		return this.connection != null && !this.closed;
	}

	/**
	 * Returns the connection, making it if there is none; a failure is logged.
	 * @return the connection, or {@code null} if it cannot be made now or is closed
	 */
	@Nullable StatefulRedisClusterPubSubConnection<String, String> connect() {
		StatefulRedisClusterPubSubConnection<String, String> made = this.connection;
		if (made != null || this.closed) {
			return made;
		}
		try {
			made = client().connectPubSub(StringCodec.UTF8);
			// the messages of the node connections, where the subscriptions are, reach the listener only so
			made.setNodeMessagePropagation(true);
			made.addListener(this.listener);
		}
		catch (RuntimeException ex) {
			if (this.failures++ == 0) {
				logger.warn("Cannot connect for sharded lock notifications (" + RedisFailures.describe(ex)
						+ "); waiters retry on their own meanwhile. Retrying every second");
			}
			return null;
		}
		this.connection = made;
		if (this.closed) {
			made.close();
			return null;
		}
		if (this.failures > 0) {
			logger.info("Connected for sharded lock notifications after " + this.failures + " failed attempts");
		}
		this.failures = 0;
		return made;
	}

	/**
	 * Reads the cluster's topology again (Lettuce's partitions), as after a {@code MOVED} or a failover.
	 * @return {@code false} if it could not be read
	 */
	boolean refreshTopology() {
		try {
			client().refreshPartitions();
			return true;
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot refresh the Redis Cluster topology: " + RedisFailures.describe(ex));
			return false;
		}
	}

	private RedisClusterClient client() {
		return (RedisClusterClient) this.connectionFactory.getRequiredNativeClient();
	}

	/** Closes the connection, which ends every subscription on it; nothing is connected again. */
	@Override
	public void close() {
		this.closed = true;
		StatefulRedisClusterPubSubConnection<String, String> made = this.connection;
		if (made != null) {
			try {
				made.close();
			}
			catch (RuntimeException ex) {
				// closing a broken connection is not worth failing the shutdown for
			}
		}
	}

}
