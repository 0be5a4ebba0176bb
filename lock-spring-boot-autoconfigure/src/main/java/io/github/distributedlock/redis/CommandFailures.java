package io.github.distributedlock.redis;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;

/**
 * Words a failed Redis command by what is known of it, for the log: a command that could not be sent (the
 * connection was refused, the host unknown) ran nothing; one that got no reply in time may still run, or have
 * run; one that Redis answered with an error was refused there. Stateless.
 */
final class CommandFailures {

	private CommandFailures() {
	}

	/**
	 * Returns whether the command certainly did not reach Redis: some cause in the chain is a refused or failed
	 * connection attempt ({@link ConnectException}, {@link UnknownHostException}).
	 * @param failure the command's failure
	 * @return {@code true} if nothing can have run in Redis
	 */
	static boolean notSent(Throwable failure) {
		return RedisFailures.ranNothing(failure);
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
		if (notSent(failure)) {
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

}
