package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the lock scripts on one lock key: EVALSHA on a connection of the factory, and EVAL when Redis does
 * not know the script yet (after a restart or {@code SCRIPT FLUSH}). Straight on the connection rather than
 * through a {@code RedisTemplate}, whose script executor proxies the connection and serializes through
 * converters: that took more memory per lock+unlock pair than the lock itself (JFR allocation samples).
 * Failures surface as {@link DistributedLockException} naming the action and the lock. Thread-safe.
 */
final class ScriptExecutor {

	private final RedisConnectionFactory connectionFactory;

	ScriptExecutor(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Runs a script that returns an integer.
	 * @param script the script
	 * @param redisKey its one key
	 * @param action what it does, for the error message ("acquire", "renew"...)
	 * @param key the lock key, for the error message
	 * @param args its arguments
	 * @return what the script returned
	 * @throws DistributedLockException if Redis could not run it
	 */
	long run(RedisScript<Long> script, String redisKey, String action, String key, String... args) {
		Object result = eval(script, ReturnType.INTEGER, redisKey, action, key, args);
		if (!(result instanceof Long value)) {
			throw noResult(action, key, result);
		}
		return value;
	}

	/**
	 * Runs a script that returns a pair of integers, such as a result and a fencing token.
	 * @param script the script
	 * @param redisKey its one key
	 * @param action what it does, for the error message
	 * @param key the lock key, for the error message
	 * @param args its arguments
	 * @return the pair
	 * @throws DistributedLockException if Redis could not run it
	 */
	Pair runPair(RedisScript<Long> script, String redisKey, String action, String key, String... args) {
		Object result = eval(script, ReturnType.MULTI, redisKey, action, key, args);
		if (result instanceof List<?> list && list.size() == 2 && list.get(0) instanceof Long first
				&& list.get(1) instanceof Long second) {
			return new Pair(first, second);
		}
		throw noResult(action, key, result);
	}

	private @Nullable Object eval(RedisScript<Long> script, ReturnType type, String redisKey, String action, String key,
			String... args) {
		byte[][] keysAndArgs = new byte[1 + args.length][];
		keysAndArgs[0] = redisKey.getBytes(StandardCharsets.UTF_8);
		for (int i = 0; i < args.length; i++) {
			keysAndArgs[i + 1] = args[i].getBytes(StandardCharsets.UTF_8);
		}
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			try {
				return connection.scriptingCommands().evalSha(script.getSha1(), type, 1, keysAndArgs);
			}
			catch (DataAccessException ex) {
				if (!isNoScript(ex)) {
					throw ex;
				}
				return connection.scriptingCommands()
					.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8), type, 1, keysAndArgs);
			}
		}
		catch (DataAccessException ex) {
			throw new DistributedLockException(
					"Could not " + action + " lock '" + key + "' in Redis: " + ex.getMessage(), ex);
		}
	}

	private static DistributedLockException noResult(String action, String key, @Nullable Object result) {
		return new DistributedLockException("Could not " + action + " lock '" + key + "': Redis returned "
				+ ((result != null) ? "an unexpected " + result.getClass().getSimpleName() : "no result"));
	}

	/** Whether Redis answered NOSCRIPT: it does not know the script's SHA1 (see the EVALSHA documentation). */
	private static boolean isNoScript(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("NOSCRIPT")) {
				return true;
			}
		}
		return false;
	}

	/**
	 * What a script that returns two integers returned.
	 * @param result the first: the operation's result code
	 * @param token the second: a fencing token, or 0
	 */
	record Pair(long result, long token) {
	}

}
