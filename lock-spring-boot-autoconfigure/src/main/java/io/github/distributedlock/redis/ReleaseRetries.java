package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Sends a release that failed on a dropped connection or a timeout again, with growing pauses, while the hold's
 * lease lasts (after that the lock has ended by itself). The release names the hold's acquisition attempt, so the
 * first try (which may have run) and its retries do what one release does: a retry that finds nothing held finds
 * the first try's work. Thread-safe.
 */
final class ReleaseRetries {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	/** The pause before the first retry, in milliseconds; each next one doubles it. */
	private static final long FIRST_PAUSE_MILLIS = 100;

	/** The longest pause between two tries, in milliseconds. */
	private static final long MAX_PAUSE_MILLIS = 2000;

	private final LockCommands commands;

	private final AtomicBoolean closed;

	/**
	 * @param commands the lock commands
	 * @param closed set once the client is closed: nothing is sent again then
	 */
	ReleaseRetries(LockCommands commands, AtomicBoolean closed) {
		this.commands = commands;
		this.closed = closed;
	}

	/**
	 * Sends a failed release of a hold again, in the background, until it reaches Redis or the lease ends.
	 * @param hold the hold whose release failed
	 */
	void retry(Hold hold) {
		retryLater(hold, FIRST_PAUSE_MILLIS);
	}

	private void retryLater(Hold hold, long pauseMillis) {
		if (this.closed.get() || System.nanoTime() - hold.confirmedUntil >= 0) {
			return;
		}
		CompletableFuture.delayedExecutor(pauseMillis, TimeUnit.MILLISECONDS).execute(() -> {
			long keepMillis = hold.keepMillis();
			CompletableFuture<?> again;
			try {
				again = (keepMillis > 0) ? this.commands.keep(hold, keepMillis) : this.commands.release(hold, null);
			}
			catch (RuntimeException ex) {
				again = CompletableFuture.failedFuture(ex);
			}
			again.whenComplete((reply, ex) -> {
				if (ex == null) {
					logger.info("Released lock '" + hold.id.key() + "' of " + hold.owner + " on a retry");
				}
				else if (RedisFailures.isTransient(ScriptExecutor.unwrap(ex))) {
					retryLater(hold, Math.min(MAX_PAUSE_MILLIS, pauseMillis * 2));
				}
			});
		});
	}

}
