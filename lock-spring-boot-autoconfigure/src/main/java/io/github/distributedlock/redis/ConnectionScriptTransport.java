package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the lock scripts on a connection of the factory, blocking the calling thread for the round trip: for
 * clients without an asynchronous API (Jedis), or Lettuce without a shared native connection. Straight on the
 * connection rather than through a {@code RedisTemplate}, whose script executor proxies the connection and
 * serializes through converters: that took more memory per lock+unlock pair than the lock itself (JFR
 * allocation samples). Its futures are complete when returned. Thread-safe.
 */
final class ConnectionScriptTransport implements ScriptTransport {

	private final RedisConnectionFactory connectionFactory;

	/**
	 * How a script that returns a list, or sometimes an integer, is run: {@code MULTI} on Lettuce (an integer
	 * comes as a list of one), {@code VALUE} on Jedis, whose {@code MULTI} fails on an integer reply (Spring Data
	 * Redis casts it to a list) while {@code VALUE} passes lists through as {@code MULTI} does.
	 */
	private final ReturnType listType;

	/** Whether the connections can pipeline commands; {@code false} once one refused (Jedis on a cluster). */
	private volatile boolean pipelines = true;

	/** Whether Redis is a cluster, once known. */
	private volatile @Nullable Boolean cluster;

	ConnectionScriptTransport(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.listType = ScriptTransport.isLettuce(connectionFactory) ? ReturnType.MULTI : ReturnType.VALUE;
	}

	@Override
	public CompletableFuture<Object> eval(RedisScript<?> script, boolean multi, boolean sendText, int numKeys,
			byte[][] keysAndArgs) {
		// a pending interrupt would make the client abandon the command and, for a release, leave the lock held
		// by nobody until its lease ends: the flag is kept for the caller instead
		boolean interrupted = Thread.interrupted();
		try {
			return CompletableFuture.completedFuture(eval(script, multi ? this.listType : ReturnType.INTEGER,
					sendText, numKeys, keysAndArgs));
		}
		catch (DataAccessException | IllegalStateException ex) {
			// IllegalStateException: the connection factory is stopped (the application is shutting down)
			return CompletableFuture.failedFuture(ex);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private @Nullable Object eval(RedisScript<?> script, ReturnType type, boolean sendText, int numKeys,
			byte[][] keysAndArgs) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return eval(connection, script, type, sendText, numKeys, keysAndArgs);
		}
	}

	private @Nullable Object eval(RedisConnection connection, RedisScript<?> script, ReturnType type,
			boolean sendText, int numKeys, byte[][] keysAndArgs) {
		try {
			if (sendText) {
				return connection.scriptingCommands().eval(text(script), type, numKeys, keysAndArgs);
			}
			return connection.scriptingCommands().evalSha(script.getSha1(), type, numKeys, keysAndArgs);
		}
		catch (DataAccessException ex) {
			if (!ScriptTransport.isNoScript(ex)) {
				throw ex;
			}
			return connection.scriptingCommands().eval(text(script), type, numKeys, keysAndArgs);
		}
	}

	@Override
	public List<CompletableFuture<Object>> evalAll(List<RedisScript<Long>> scripts, List<byte[][]> keysAndArgs) {
		List<Object> results;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			if (!openPipeline(connection)) {
				return evalEach(connection, scripts, keysAndArgs);
			}
			for (int i = 0; i < scripts.size(); i++) {
				connection.scriptingCommands()
					.evalSha(scripts.get(i).getSha1(), ReturnType.INTEGER, 1, keysAndArgs.get(i));
			}
			try {
				results = connection.closePipeline();
			}
			catch (RedisPipelineException ex) {
				// some calls failed: the others' results are still there, the failures in their places
				results = ex.getPipelineResult();
			}
		}
		catch (DataAccessException | IllegalStateException ex) {
			List<CompletableFuture<Object>> failed = new ArrayList<>(scripts.size());
			scripts.forEach((script) -> failed.add(CompletableFuture.completedFuture(ex)));
			return failed;
		}
		List<CompletableFuture<Object>> outcomes = new ArrayList<>(scripts.size());
		for (int i = 0; i < scripts.size(); i++) {
			Object result = (i < results.size()) ? results.get(i) : null;
			if (result instanceof Long || (result instanceof Throwable failure && !ScriptTransport.isNoScript(failure))) {
				outcomes.add(CompletableFuture.completedFuture(result));
			}
			else {
				// NOSCRIPT (or no reply): once more on its own, sending the script
				outcomes.add(eval(scripts.get(i), false, false, 1, keysAndArgs.get(i))
					.handle((reply, ex) -> (ex != null) ? ex : reply));
			}
		}
		return outcomes;
	}

	/**
	 * Opens a pipeline on the connection if it has them: Jedis's cluster connection has none (it refuses
	 * {@code openPipeline()} with {@link InvalidDataAccessApiUsageException}), which is remembered.
	 * @return {@code false} if the connection cannot pipeline
	 */
	private boolean openPipeline(RedisConnection connection) {
		if (!this.pipelines) {
			return false;
		}
		try {
			connection.openPipeline();
			return true;
		}
		catch (InvalidDataAccessApiUsageException | UnsupportedOperationException ex) {
			this.pipelines = false;
			return false;
		}
	}

	/**
	 * Runs the scripts one by one, without a pipeline: a round trip each, each failure in its own place.
	 */
	private List<CompletableFuture<Object>> evalEach(RedisConnection connection,
			List<RedisScript<Long>> scripts, List<byte[][]> keysAndArgs) {
		List<CompletableFuture<Object>> outcomes = new ArrayList<>(scripts.size());
		for (int i = 0; i < scripts.size(); i++) {
			Object result;
			try {
				result = eval(connection, scripts.get(i), ReturnType.INTEGER, false, 1, keysAndArgs.get(i));
			}
			catch (DataAccessException | IllegalStateException ex) {
				result = ex;
			}
			outcomes.add(CompletableFuture.completedFuture(result));
		}
		return outcomes;
	}

	@Override
	public boolean isBlocking() {
		return true;
	}

	@Override
	public boolean isCluster() {
		Boolean cluster = this.cluster;
		if (cluster == null) {
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				cluster = connection instanceof RedisClusterConnection;
				this.cluster = cluster;
			}
			catch (RuntimeException ex) {
				return true;
			}
		}
		return cluster;
	}

	private static byte[] text(RedisScript<?> script) {
		return script.getScriptAsString().getBytes(StandardCharsets.UTF_8);
	}

}
