package io.github.distributedlock.redis;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What the lock client logs about waits, grants, hand-overs and renewals, so that DEBUG and TRACE show why a
 * caller waited and for how long. DEBUG (category {@code io.github.distributedlock.redis.RedisWait}): a wait that
 * starts (what for, for how long at most, and why: held, with how long its lease has left) and how it ended
 * (acquired, acquire timeout passed, cancelled, failed) after how long. TRACE: a grant a waiter used, a
 * hand-over to the next local waiter (category {@code ...HoldReleaser}), and each batch of renewals: how many,
 * how long, how many found gone (category {@code ...LeaseWatchdog}). Callers check {@link #waits()} and the
 * like before building anything, so it costs a level check when off. Stateless.
 */
final class WaitLog {

	private static final Log waits = LogFactory.getLog(RedisWait.class);

	private static final Log releases = LogFactory.getLog(HoldReleaser.class);

	private static final Log renewals = LogFactory.getLog(LeaseWatchdog.class);

	private WaitLog() {
	}

	/** Whether waits are logged (DEBUG), grants too at TRACE. */
	static boolean waits() {
		return waits.isDebugEnabled();
	}

	/** Whether hand-overs are logged. */
	static boolean handOvers() {
		return releases.isTraceEnabled();
	}

	/** Whether renewal batches are logged. */
	static boolean renewals() {
		return renewals.isTraceEnabled();
	}

	static void started(String key, LockType type, String owner, long remainingNanos, long tryResult) {
		String why = (tryResult == LockScripts.NO_TTL) ? "it is held without a TTL"
				: (tryResult >= 0) ? "it is held, with " + tryResult + " ms left of its lease" : "it is taken";
		waits.debug("Waiting up to " + millis(remainingNanos) + " ms for lock '" + key + "' (" + type + ") as "
				+ owner + ": " + why);
	}

	static void ended(String key, LockType type, String owner, long sinceNanos, boolean acquired,
			@Nullable Throwable failure, boolean cancelled) {
		String how = acquired ? "acquired it" : (failure != null) ? "failed: " + failure.getMessage()
				: cancelled ? "gave up: cancelled (the caller stopped waiting, or was interrupted)"
						: "gave up: its acquire timeout passed";
		waits.debug("Waited " + millis(System.nanoTime() - sinceNanos) + " ms for lock '" + key + "' (" + type
				+ ") as " + owner + " and " + how);
	}

	static void granted(String key, LockType type, String owner, long token) {
		if (waits.isTraceEnabled()) {
			waits.trace("Lock '" + key + "' (" + type + ") was granted to waiting " + owner + " by its releaser "
					+ "(fencing token " + token + ")");
		}
	}

	static void handedOver(String key, LockType type, String from, long token) {
		releases.trace("Lock '" + key + "' (" + type + ") was handed over by " + from
				+ " to the next waiter of this client in its release (fencing token " + token + ")");
	}

	static void renewed(List<Hold> due, long sentAtNanos) {
		long gone = due.stream().filter((hold) -> hold.lostReason() != null).count();
		renewals.trace("Renewed " + due.size() + ((due.size() == 1) ? " lock" : " locks") + " in "
				+ ((due.size() == 1) ? "one round trip" : "one batch") + " of " + millis(System.nanoTime() - sentAtNanos)
				+ " ms" + ((gone > 0) ? "; " + gone + " found gone or not renewed in time" : ""));
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

}
