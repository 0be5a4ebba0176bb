package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the lock scripts on one lock key: EVALSHA on a connection of the factory, and EVAL when Redis does
 * not know the script yet (after a restart or {@code SCRIPT FLUSH}). Straight on the connection rather than
 * through a {@code RedisTemplate}, whose script executor proxies the connection and serializes through
 * converters: that took more memory per lock+unlock pair than the lock itself (JFR allocation samples).
 * Failures, also a connection factory that is stopped, surface as {@link DistributedLockException} naming the
 * action and the lock. Thread-safe.
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
		return toLong(eval(script, ReturnType.INTEGER, false, redisKey, action, key, args), action, key);
	}

	/**
	 * Runs a script that returns an integer with EVAL, sending its text rather than its SHA1: for a command
	 * that must run in Redis even when the client stops waiting for its reply (after a command timeout). With
	 * EVALSHA, Redis might answer NOSCRIPT to a client that no longer listens, which then never sends the text.
	 * @param script the script
	 * @param redisKey its one key
	 * @param action what it does, for the error message
	 * @param key the lock key, for the error message
	 * @param args its arguments
	 * @return what the script returned
	 * @throws DistributedLockException if Redis could not run it, or its reply did not come in time
	 */
	long runText(RedisScript<Long> script, String redisKey, String action, String key, String... args) {
		return toLong(eval(script, ReturnType.INTEGER, true, redisKey, action, key, args), action, key);
	}

	private static long toLong(@Nullable Object result, String action, String key) {
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
		Object result = eval(script, ReturnType.MULTI, false, redisKey, action, key, args);
		if (result instanceof List<?> list && list.size() == 2 && list.get(0) instanceof Long first
				&& list.get(1) instanceof Long second) {
			return new Pair(first, second);
		}
		throw noResult(action, key, result);
	}

	/**
	 * Runs scripts that return an integer, each on its own key, in one pipeline: one round trip for all of them
	 * instead of one each, so that the watchdog renews a thousand locks over a slow network within their
	 * leases. A script that Redis does not know yet (NOSCRIPT) is run again on its own, with EVAL.
	 * @param calls the scripts to run
	 * @return for each call, in the same order, its result or its failure; never throws for a failed call
	 */
	List<Outcome> runAll(List<Call> calls) {
		List<Object> results;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.openPipeline();
			for (Call call : calls) {
				connection.scriptingCommands()
					.evalSha(call.script().getSha1(), ReturnType.INTEGER, 1, keysAndArgs(call.redisKey(), call.args()));
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
			DistributedLockException failure = new DistributedLockException(
					"Could not run " + calls.size() + " lock scripts in Redis: " + ex.getMessage(), ex);
			return calls.stream().map((call) -> new Outcome(0, failure)).toList();
		}
		List<Outcome> outcomes = new ArrayList<>(calls.size());
		for (int i = 0; i < calls.size(); i++) {
			Call call = calls.get(i);
			Object result = (i < results.size()) ? results.get(i) : null;
			if (result instanceof Long value) {
				outcomes.add(new Outcome(value, null));
			}
			else if (result instanceof Throwable failure && !isNoScript(failure)) {
				outcomes.add(new Outcome(0, new DistributedLockException("Could not " + call.action() + " lock '"
						+ call.key() + "' in Redis: " + failure.getMessage(), failure)));
			}
			else {
				try {
					outcomes.add(new Outcome(run(call.script(), call.redisKey(), call.action(), call.key(), call.args()),
							null));
				}
				catch (DistributedLockException ex) {
					outcomes.add(new Outcome(0, ex));
				}
			}
		}
		return outcomes;
	}

	private static byte[][] keysAndArgs(String redisKey, String... args) {
		byte[][] keysAndArgs = new byte[1 + args.length][];
		keysAndArgs[0] = redisKey.getBytes(StandardCharsets.UTF_8);
		for (int i = 0; i < args.length; i++) {
			keysAndArgs[i + 1] = args[i].getBytes(StandardCharsets.UTF_8);
		}
		return keysAndArgs;
	}

	/**
	 * Runs a script that returns a list (of integers and strings, the strings as {@code byte[]}).
	 * @param script the script
	 * @param redisKey its one key
	 * @param action what it does, for the error message
	 * @param key the lock key, for the error message
	 * @param args its arguments
	 * @return the list
	 * @throws DistributedLockException if Redis could not run it
	 */
	List<?> runList(RedisScript<?> script, String redisKey, String action, String key, String... args) {
		Object result = eval(script, ReturnType.MULTI, false, redisKey, action, key, args);
		if (result instanceof List<?> list) {
			return list;
		}
		throw noResult(action, key, result);
	}

	private @Nullable Object eval(RedisScript<?> script, ReturnType type, boolean text, String redisKey,
			String action, String key, String... args) {
		byte[][] keysAndArgs = keysAndArgs(redisKey, args);
		// a pending interrupt would make the client abandon the command (Lettuce: "Command interrupted") and,
		// for a release, leave the lock held by nobody until its lease ends: the flag is kept for the caller
		boolean interrupted = Thread.interrupted();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			try {
				if (text) {
					return connection.scriptingCommands()
						.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8), type, 1, keysAndArgs);
				}
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
		catch (DataAccessException | IllegalStateException ex) {
			// IllegalStateException: the connection factory is stopped (the application is shutting down)
			throw new DistributedLockException(
					"Could not " + action + " lock '" + key + "' in Redis: " + ex.getMessage(), ex);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
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

	/**
	 * One script to run in a pipeline ({@link #runAll(List)}).
	 * @param script the script
	 * @param redisKey its one key
	 * @param action what it does, for the error message
	 * @param key the lock key, for the error message
	 * @param args its arguments
	 */
	record Call(RedisScript<Long> script, String redisKey, String action, String key, String... args) {
	}

	/**
	 * What one script of a pipeline returned, or why it failed.
	 * @param result the script's result; 0 if it failed
	 * @param failure why it failed, or {@code null} if it ran
	 */
	record Outcome(long result, @Nullable DistributedLockException failure) {
	}

}
