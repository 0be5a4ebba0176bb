package io.github.distributedlock.redis;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLException;

import io.github.distributedlock.core.DistributedLockException;

/**
 * Reads what a failed Redis call tells, from its chain of causes: whether the user lacks a permission (an ACL
 * refusal), whether nothing can have run in Redis (the connection was never made, or the command was refused
 * before it ran), whether no reply came in time (it may still run), and the root cause's own words for a log
 * line; and words a failed lock script as a {@link DistributedLockException} naming the action and the lock. Client libraries wrap their failures in
 * several layers (Spring's, Lettuce's or Jedis's, completion exceptions): these look through all of them.
 */
final class RedisFailures {

	/** Lettuce's failure to connect, compared by name so that Jedis users need not have Lettuce. */
	private static final String LETTUCE_CONNECTION_EXCEPTION = "io.lettuce.core.RedisConnectionException";

	/**
	 * How the clients and Spring Data Redis say that a connection could not be had (Spring Data Redis's
	 * connection factories when they get one, Jedis when it connects or its pool gives none); a command that
	 * failed on a connection that was made says otherwise.
	 */
	private static final String[] NOT_CONNECTED = { "Unable to connect to Redis", "Cannot get Jedis connection",
			"Failed to connect to", "Could not get a resource from the pool" };

	private RedisFailures() {
	}

	/**
	 * Tells whether Redis refused a command because of the ACL user's permissions: the command itself, a key,
	 * or a channel ({@code NOPERM ...}), or a command a script called ({@code ... can't run this command ...},
	 * {@code ... can't publish to the channel ...}).
	 * @param failure a failure of a Redis call
	 * @return {@code true} for an ACL refusal
	 */
	static boolean isPermissionDenied(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && (message.startsWith("NOPERM") || message.contains("The user executing the script"))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Tells whether Redis (or a script) refused a command on a key that holds another type of value
	 * ({@code WRONGTYPE ...}): a lock's key overwritten with something else, such as a {@code SET}.
	 * @param failure a failure of a Redis call
	 * @return {@code true} for a command on a key of the wrong type
	 */
	static boolean isWrongType(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("WRONGTYPE")) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Tells whether a failed call certainly ran nothing in Redis: its connection was never made (refused,
	 * unknown host, TLS handshake, authentication, a connect that did not finish in time), or Redis refused the
	 * command itself before running it ({@code NOPERM}). A call that timed out waiting for its reply, or whose
	 * connection broke, may have run.
	 * @param failure a failure of a Redis call
	 * @return {@code true} if nothing can have run
	 */
	static boolean ranNothing(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (cause instanceof ConnectException || cause instanceof UnknownHostException
					|| cause instanceof SSLException || cause instanceof NotConnectedException
					|| LETTUCE_CONNECTION_EXCEPTION.equals(cause.getClass().getName())
					|| (message != null && (message.startsWith("NOPERM") || message.startsWith("WRONGPASS")
							|| message.startsWith("NOAUTH")))) {
				return true;
			}
			if (message != null) {
				for (String notConnected : NOT_CONNECTED) {
					if (message.startsWith(notConnected)) {
						return true;
					}
				}
			}
		}
		return false;
	}

	/**
	 * Tells whether a failed command may succeed when sent again: a dropped connection, a timeout, a server
	 * that is loading, busy or failing over. An error reply of a script (a bug, a missing permission) or a
	 * connection factory that was destroyed is final. Such a command's outcome is unknown: it may have run.
	 * @param ex the failure
	 * @return {@code true} if sending it again may succeed
	 */
	static boolean isTransient(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			String type = cause.getClass().getName();
			String message = String.valueOf(cause.getMessage());
			if (type.equals("io.lettuce.core.RedisCommandExecutionException")
					|| type.equals("redis.clients.jedis.exceptions.JedisDataException")) {
				return message.startsWith("LOADING") || message.startsWith("BUSY") || message.startsWith("TRYAGAIN")
						|| message.startsWith("CLUSTERDOWN") || message.startsWith("MASTERDOWN")
						|| message.startsWith("READONLY") || message.startsWith("NOREPLICAS");
			}
			if (cause instanceof IllegalStateException && (message.contains("destroyed") || message.contains("STOPPED")
					|| message.contains("closed"))) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Returns the words of the failure that say what went wrong: a TLS failure's message (such as
	 * {@code PKIX path building failed: ...}), otherwise the root cause's (such as
	 * {@code WRONGPASS invalid username-password pair or user is disabled.} or {@code Connection refused}).
	 * @param failure a failure of a Redis call
	 * @return the words, never empty
	 */
	static String describe(Throwable failure) {
		Throwable root = failure;
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SSLException) {
				return words(cause);
			}
			root = cause;
		}
		return words(root);
	}

	private static String words(Throwable cause) {
		String message = cause.getMessage();
		return (message != null && !message.isBlank()) ? message : cause.getClass().getName();
	}

	/**
	 * Returns whether the command got no reply in time: a timeout anywhere in the chain (Lettuce's
	 * {@code RedisCommandTimeoutException}, Spring's {@code QueryTimeoutException}, a
	 * {@link TimeoutException}), so it may still run in Redis, or have run.
	 * @param failure the command's failure
	 * @return {@code true} if its outcome is unknown because no reply came
	 */
	static boolean timedOut(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof TimeoutException || cause.getClass().getSimpleName().contains("TimeoutException")) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Words what is known of a failed command that changes a lock.
	 * @param failure the command's failure
	 * @return such as {@code "it was not sent (Redis could not be reached: Connection refused), so nothing ran"}
	 */
	static String outcome(Throwable failure) {
		if (ranNothing(failure)) {
			return "it was not sent (Redis could not be reached: " + rootMessage(failure) + "), so nothing ran";
		}
		if (timedOut(failure)) {
			return "no reply came in time (" + rootMessage(failure) + "), so Redis may still run it, or have run it";
		}
		return "it failed (" + rootMessage(failure) + "); whether it ran in Redis is not known";
	}

	private static String rootMessage(Throwable failure) {
		Throwable root = failure;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return (root.getMessage() != null) ? root.getMessage() : root.getClass().getSimpleName();
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
		if (isPermissionDenied(cause) && ranNothing(cause)) {
			what = ": Redis refused it, nothing ran (" + describe(cause) + ")";
		}
		else if (ranNothing(cause)) {
			what = ": no connection to Redis, nothing ran (" + describe(cause) + ")";
		}
		else if (isWrongType(cause)) {
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
	 * A connection that was not made within the time an operation may wait for it: nothing ran.
	 */
	static final class NotConnectedException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		NotConnectedException(String message) {
			super(message);
		}

	}

}
