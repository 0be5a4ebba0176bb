package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.support.AsyncConnectionPoolSupport;
import io.lettuce.core.support.BoundedAsyncPool;
import io.lettuce.core.support.BoundedPoolConfig;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Replica sync: makes sure that enough replicas have a lock its new holder just got, before the holder runs,
 * so that a failover to a replica right after the acquisition does not lose the lock. Like Redisson's
 * {@code checkLockSyncedSlaves}; it is not Redlock.
 * <p>
 * {@code WAIT} waits only for the writes of the connection it runs on, and cannot run in a script; the write
 * that made the owner the holder may even be another client's (a grant or a hand-over by a release). So the new
 * holder writes to its lock once more ({@code replica_touch.lua}: its hold count, unchanged) and sends
 * {@code WAIT} right behind it, pipelined on the same connection: one round trip. Replication is one ordered
 * stream, so a replica that acknowledges that write has the acquisition too.
 * <p>
 * {@code WAIT} blocks its connection for up to the sync timeout, so it never runs on the application's shared
 * connection: each sync borrows a connection of its own from a pool (Lettuce's {@link BoundedAsyncPool}; idle
 * ones are kept for the next). In Redis Cluster it goes to the primary that owns the lock's slot, through a node
 * connection of a pooled cluster connection. Needs Lettuce ({@link LettuceConnectionFactory}).
 * <p>
 * Thread-safe.
 */
final class ReplicaSync implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ReplicaSync.class);

	/** Connections kept for the next sync: about as many as acquisitions sync at once. */
	private static final int MAX_IDLE = 8;

	private final int replicas;

	private final long timeoutMillis;

	/** How long a sync may take on the client side: the sync timeout plus the command timeout. */
	private final long awaitNanos;

	private final BoundedAsyncPool<StatefulConnection<byte[], byte[]>> pool;

	private final RedisScript<Long> touch = LockScripts.REPLICA_TOUCH;

	/**
	 * Checks the replica sync settings of a lock client, and creates its replica sync if it is on.
	 * @param connectionFactory the lock client's connection factory: a {@link LettuceConnectionFactory} when on
	 * @param replicas how many replicas must acknowledge each acquisition; 0 turns it off
	 * @param timeout how long {@code WAIT} waits for them, at least 1 ms (checked also when off)
	 * @return the replica sync, or {@code null} when off
	 * @throws IllegalArgumentException if {@code replicas} is negative, {@code timeout} is under 1 ms, or it is
	 * on and the factory is not Lettuce's
	 */
	static @Nullable ReplicaSync of(RedisConnectionFactory connectionFactory, int replicas, Duration timeout) {
		Objects.requireNonNull(timeout, "syncTimeout must not be null");
		if (replicas < 0) {
			throw new IllegalArgumentException("sync-replicas must be 0 (off) or more, was " + replicas);
		}
		if (timeout.toMillis() < 1) {
			// WAIT with 0 ms would wait for ever
			throw new IllegalArgumentException("sync-timeout must be at least 1ms, was " + timeout);
		}
		return (replicas > 0) ? new ReplicaSync(connectionFactory, replicas, timeout) : null;
	}

	/**
	 * Creates the replica sync of one lock client; connects lazily, at the first sync.
	 * @param connectionFactory the lock client's connection factory: a {@link LettuceConnectionFactory}
	 * @param replicas how many replicas must acknowledge each acquisition, at least 1
	 * @param timeout how long {@code WAIT} waits for them, at least 1 ms
	 * @throws IllegalArgumentException if the factory is not Lettuce's, or the numbers are out of range
	 */
	ReplicaSync(RedisConnectionFactory connectionFactory, int replicas, Duration timeout) {
		if (replicas < 1 || timeout.toMillis() < 1) {
			throw new IllegalArgumentException("Replica sync needs at least one replica and 1 ms, not " + replicas
					+ " and " + timeout);
		}
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			throw new IllegalArgumentException("Replica sync (sync-replicas > 0) needs Lettuce: a LettuceConnectionFactory, not "
					+ connectionFactory.getClass().getName());
		}
		this.replicas = replicas;
		this.timeoutMillis = timeout.toMillis();
		this.awaitNanos = TimeUnit.MILLISECONDS.toNanos(this.timeoutMillis + lettuce.getTimeout());
		BoundedPoolConfig config = BoundedPoolConfig.builder()
			.maxTotal(Integer.MAX_VALUE)
			.maxIdle(MAX_IDLE)
			.minIdle(0)
			.testOnRelease(true)
			.build();
		this.pool = AsyncConnectionPoolSupport.createBoundedObjectPool(() -> connect(lettuce), config, false);
	}

	/**
	 * Opens a connection of its own with the factory's Lettuce client (made when the factory started): in a
	 * cluster a cluster connection, otherwise a connection to the primary (through the sentinels with Sentinel)
	 * and its database, as the client's URI says.
	 */
	private static CompletionStage<StatefulConnection<byte[], byte[]>> connect(LettuceConnectionFactory factory) {
		try {
			AbstractRedisClient client = factory.getRequiredNativeClient();
			StatefulConnection<byte[], byte[]> connection = (client instanceof RedisClusterClient cluster)
					? cluster.connect(ByteArrayCodec.INSTANCE) : ((RedisClient) client).connect(ByteArrayCodec.INSTANCE);
			return CompletableFuture.completedFuture(connection);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Makes sure enough replicas have the lock of a hold that was just acquired: writes to the lock as its
	 * owner and waits for the replicas with {@code WAIT}, on a connection of its own, without blocking a thread.
	 * Ends within the sync timeout plus a round trip, later only if Redis does not answer (then within the
	 * command timeout).
	 * @param hold the new hold
	 * @param executor borrows the connection: making one blocks, which Lettuce's I/O threads must not
	 * @return completes with {@code true} if at least the configured number of replicas acknowledged it in
	 * time; with {@code false} if fewer did, if the owner no longer holds the lock, or if Redis could not be
	 * asked (logged at DEBUG): the caller undoes the acquisition. Never fails.
	 */
	CompletableFuture<Boolean> confirm(Hold hold, Executor executor) {
		return CompletableFuture.supplyAsync(this.pool::acquire, executor).thenCompose(Function.identity()).thenCompose((connection) -> {
			CompletableFuture<long @Nullable []> outcome;
			try {
				RedisAsyncCommands<byte[], byte[]> commands = commandsFor(connection, hold.redisKey());
				outcome = touchAndWait(commands, hold, false).thenCompose((first) -> (first != null)
						? CompletableFuture.completedFuture(first)
						// Redis did not know the script yet (a restart, SCRIPT FLUSH): once more, sending it
						: touchAndWait(commands, hold, true));
			}
			catch (RuntimeException ex) {
				outcome = CompletableFuture.failedFuture(ex);
			}
			return outcome.orTimeout(this.awaitNanos, TimeUnit.NANOSECONDS).handle((acknowledged, ex) -> {
				release(connection, ex != null);
				return judge(hold, acknowledged, ex);
			});
		}).exceptionally((ex) -> judge(hold, null, ex));
	}

	private boolean judge(Hold hold, long @Nullable [] outcome, @Nullable Throwable failure) {
		if (failure == null && outcome != null && outcome[0] == 1 && outcome[1] >= this.replicas) {
			return true;
		}
		if (logger.isDebugEnabled()) {
			String why = (failure != null) ? "its replicas could not be asked (" + failure + ")"
					: (outcome == null) ? "Redis did not run the sync script"
							: (outcome[0] != 1) ? "it was no longer held when synced"
									: outcome[1] + " of " + this.replicas + " replicas acknowledged it within "
											+ this.timeoutMillis + " ms";
			logger.debug("Undoing the acquisition of lock '" + hold.key() + "' (" + hold.type() + ") by "
					+ hold.owner() + ": " + why);
		}
		return false;
	}

	/**
	 * Runs the touch script and {@code WAIT}, pipelined.
	 * @return {touched (1 or 0), replicas that acknowledged}, or {@code null} if Redis answered NOSCRIPT
	 */
	private CompletableFuture<long @Nullable []> touchAndWait(RedisAsyncCommands<byte[], byte[]> commands, Hold hold,
			boolean sendScript) {
		byte[][] keys = { hold.redisKey().getBytes(StandardCharsets.UTF_8) };
		byte[] type = hold.kind().name().getBytes(StandardCharsets.UTF_8);
		byte[] owner = hold.owner().getBytes(StandardCharsets.UTF_8);
		RedisFuture<Long> touched = sendScript
				? commands.eval(this.touch.getScriptAsString().getBytes(StandardCharsets.UTF_8), ScriptOutputType.INTEGER,
						keys, type, owner)
				: commands.evalsha(this.touch.getSha1(), ScriptOutputType.INTEGER, keys, type, owner);
		RedisFuture<Long> acknowledged = commands.waitForReplication(this.replicas, this.timeoutMillis);
		// WAIT is read even after a NOSCRIPT, so that nothing of this try is left on the connection
		return touched.toCompletableFuture().handle((result, ex) -> {
			if (ex != null && !(!sendScript && unwrapped(ex) instanceof RedisNoScriptException)) {
				throw new CompletionException(unwrapped(ex));
			}
			return result;
		}).thenCombine(acknowledged, (result, replicas) -> (result == null) ? null : new long[] { result, replicas });
	}

	private static Throwable unwrapped(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	/**
	 * The commands of the connection to the primary that has the key: the pooled connection itself, or in a
	 * cluster the connection to the primary that owns the key's slot.
	 */
	@SuppressWarnings("unchecked")
	private static RedisAsyncCommands<byte[], byte[]> commandsFor(StatefulConnection<byte[], byte[]> connection,
			String redisKey) {
		if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
			int slot = SlotHash.getSlot(redisKey.getBytes(StandardCharsets.UTF_8));
			RedisClusterNode primary = cluster.getPartitions().getMasterBySlot(slot);
			if (primary == null) {
				throw new IllegalStateException("No primary is known for slot " + slot + " of key '" + redisKey + "'");
			}
			return cluster.getConnection(primary.getNodeId()).async();
		}
		return ((StatefulRedisConnection<byte[], byte[]>) connection).async();
	}

	/**
	 * Gives a connection back to the pool. A broken one (a command that failed or timed out may still be
	 * pending on it) is closed first, so the pool, which checks connections given back, drops it.
	 */
	private void release(StatefulConnection<byte[], byte[]> connection, boolean broken) {
		if (broken) {
			connection.close();
		}
		this.pool.release(connection).whenComplete((released, ex) -> {
			if (ex != null) {
				// the pool was closed meanwhile
				connection.closeAsync();
			}
		});
	}

	/**
	 * Closes the pooled connections.
	 */
	@Override
	public void close() {
		this.pool.close();
	}

}
