package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Sends a release that failed on a dropped connection or a timeout again, with growing pauses, while the hold's
 * lease lasts (after that the lock has ended by itself; if no try got an answer by then, the hold is told lost
 * unless Redis is shown to be on the server life that granted it: the lock may have been wiped while its owner
 * held it, and only the release could have found that out). The release names the hold's acquisition attempt, so the
 * first try (which may have run) and its retries do what one release does. A retry that finds nothing held is read
 * by {@link ReleaseReplayCheck}: the first try's work on the server life that granted the lock, else a possible loss,
 * told as a loss. Thread-safe.
 */
final class ReleaseRetrier {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	/** The pause before the first retry, in milliseconds; each next one doubles it. */
	private static final long FIRST_PAUSE_MILLIS = 100;

	/** The longest pause between two tries, in milliseconds. */
	private static final long MAX_PAUSE_MILLIS = 2000;

	private final AtomicBoolean closed;

	/** Tells a loss that a retry found. */
	private final HoldEvents events;

	/** Reads a retry's "not held" answer. */
	private final ReleaseReplayCheck replays;

	/**
	 * @param closed set once the client is closed: nothing is sent again then
	 * @param events tells a loss that a retry found
	 * @param replays reads a retry's "not held" answer
	 */
	ReleaseRetrier(AtomicBoolean closed, HoldEvents events, ReleaseReplayCheck replays) {
		this.closed = closed;
		this.events = events;
		this.replays = replays;
	}

	/**
	 * Sends a failed release of a hold again, in the background, until it reaches Redis or the lease ends.
	 * @param hold the hold whose release failed
	 */
	void retry(Hold hold) {
		retryLater(hold, FIRST_PAUSE_MILLIS);
	}

	private void retryLater(Hold hold, long pauseMillis) {
		if (this.closed.get()) {
			return;
		}
		if (System.nanoTime() - hold.confirmedUntil() >= 0) {
			if (hold.lostReason() == null) {
				// no try got an answer while the lease lasted: told lost unless Redis is shown to be on the server
				// life that granted the lock (then the lock ended by this release or, at the latest, by its lease)
				this.replays.unansweredWithinLease(hold).thenAccept((judged) -> {
					if (judged == LockScripts.NOT_HELD) {
						this.events.later(() -> this.events.lost(hold));
					}
				});
			}
			return;
		}
		CompletableFuture.delayedExecutor(pauseMillis, TimeUnit.MILLISECONDS).execute(() -> {
			long keepMillis = hold.keepMillis();
			ReleaseReplayCheck.Sent sent = this.replays.sending();
			CompletableFuture<Long> again;
			try {
				again = (keepMillis > 0) ? hold.kind().keep(hold, keepMillis)
						: hold.kind().release(hold, null).thenApply(ScriptExecutor.Pair::result);
			}
			catch (RuntimeException ex) {
				again = CompletableFuture.failedFuture(ex);
			}
			again.whenComplete((result, ex) -> {
				if (ex == null && result == LockScripts.NOT_HELD) {
					this.replays.notHeldOnRetry(hold, sent).thenAccept((judged) -> {
						if (judged == LockScripts.NOT_HELD) {
							hold.markLost(hold.goneAtRelease());
							this.events.later(() -> this.events.lost(hold));
						}
					});
				}
				else if (ex == null) {
					logger.info("Released lock '" + hold.key() + "' of " + hold.owner() + " on a retry");
				}
				else if (RedisFailures.isTransient(ScriptExecutor.unwrap(ex))) {
					retryLater(hold, Math.min(MAX_PAUSE_MILLIS, pauseMillis * 2));
				}
			});
		});
	}

}
