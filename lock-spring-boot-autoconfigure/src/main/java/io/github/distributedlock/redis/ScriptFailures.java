package io.github.distributedlock.redis;

import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

/**
 * Words what went wrong with a lock script as a {@link DistributedLockException} naming the action and the lock:
 * a failure of the call (by what is known of it: refused, never connected, a key that is no lock, or Redis's own
 * words) or a reply that is not what the script returns. Stateless.
 */
final class ScriptFailures {

	private ScriptFailures() {
	}

	/**
	 * Words a failed script call; a {@link DistributedLockException} inside the failure is returned as it is.
	 * @param action what the script does ("acquire", "renew"...)
	 * @param key the lock key
	 * @param redisKey the script's Redis key
	 * @param ex the failure, possibly wrapped by a future
	 * @return the exception to fail with
	 */
	static DistributedLockException failure(String action, String key, String redisKey, Throwable ex) {
		Throwable cause = unwrapFuture(ex);
		if (cause instanceof DistributedLockException known) {
			return known;
		}
		// worded by what is known: a refused command or a connection never made ran nothing in Redis
		String what;
		if (RedisFailures.isPermissionDenied(cause) && RedisFailures.ranNothing(cause)) {
			what = ": Redis refused it, nothing ran (" + RedisFailures.describe(cause) + ")";
		}
		else if (RedisFailures.ranNothing(cause)) {
			what = ": no connection to Redis, nothing ran (" + RedisFailures.describe(cause) + ")";
		}
		else if (RedisFailures.isWrongType(cause)) {
			what = ": its Redis key '" + redisKey + "' holds a value that is no lock (WRONGTYPE): something else writes "
					+ "under the locks' key prefix; give the locks a prefix of their own (distributed-lock.key-prefix)";
		}
		else {
			what = " in Redis: " + cause.getMessage();
		}
		return new DistributedLockException("Could not " + action + " lock '" + key + "'" + what, cause);
	}

	/**
	 * Returns the failure inside {@link CompletionException}s and {@link ExecutionException}s.
	 * @param ex a failure of a future
	 * @return the innermost cause that is neither, or {@code ex}
	 */
	static Throwable unwrapFuture(Throwable ex) {
		Throwable cause = ex;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/**
	 * Reads a script's integer reply.
	 * @param result the reply
	 * @param action what the script does
	 * @param key the lock key
	 * @return the integer
	 * @throws DistributedLockException if the reply is no integer
	 */
	static long toLong(@Nullable Object result, String action, String key) {
		if (!(result instanceof Long value)) {
			throw noResult(action, key, result);
		}
		return value;
	}

	/**
	 * Reads a script's reply of two integers, such as a result and a fencing token.
	 * @param result the reply
	 * @param action what the script does
	 * @param key the lock key
	 * @return the pair
	 * @throws DistributedLockException if the reply is no list of two integers
	 */
	static ScriptExecutor.Pair toPair(@Nullable Object result, String action, String key) {
		if (result instanceof List<?> list && list.size() == 2 && list.get(0) instanceof Long first
				&& list.get(1) instanceof Long second) {
			return new ScriptExecutor.Pair(first, second);
		}
		throw noResult(action, key, result);
	}

	/**
	 * Reads the reply of an acquire script that answers an acquisition with its fencing token alone, one integer
	 * (a list of one from Lettuce's list output, a {@code Long} from Jedis's: see {@link ScriptTransport}), and
	 * anything else with a pair.
	 * @param result the reply
	 * @param action what the script does
	 * @param key the lock key
	 * @return {@link LockScripts#ACQUIRED} and the token for one integer, else the pair
	 * @throws DistributedLockException if the reply is neither
	 */
	static ScriptExecutor.Pair toAcquisition(@Nullable Object result, String action, String key) {
		if (result instanceof Long token) {
			return new ScriptExecutor.Pair(LockScripts.ACQUIRED, token);
		}
		if (result instanceof List<?> list && list.size() == 1 && list.get(0) instanceof Long token) {
			return new ScriptExecutor.Pair(LockScripts.ACQUIRED, token);
		}
		return toPair(result, action, key);
	}

	/**
	 * Words a reply that is not what the script returns.
	 * @param action what the script does
	 * @param key the lock key
	 * @param result the reply
	 * @return the exception to fail with
	 */
	static DistributedLockException noResult(String action, String key, @Nullable Object result) {
		return new DistributedLockException("Could not " + action + " lock '" + key + "': Redis returned "
				+ ((result != null) ? "an unexpected " + result.getClass().getSimpleName() : "no result"));
	}

}
