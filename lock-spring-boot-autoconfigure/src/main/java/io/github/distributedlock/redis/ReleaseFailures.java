package io.github.distributedlock.redis;

import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.core.DistributedLockException;

/**
 * Judges a release whose round trip to Redis failed: a Redis key overwritten with something else, or a hard
 * lease that had run out when the release was sent over a transient failure, is a loss; any other transient
 * failure is sent again in the background ({@link ReleaseRetrier}) and the caller's work stands; anything else
 * fails the release. Thread-safe.
 */
final class ReleaseFailures {

	/**
	 * What {@link #judge} returns when the round trip failed in a way a retry may get past: the release goes on in
	 * the background, and the caller's work stands.
	 */
	static final long PENDING = Long.MIN_VALUE;

	private final AtomicBoolean closed;

	private final HoldEvents events;

	/** Sends releases that failed transiently again while their leases last. */
	private final ReleaseRetrier retries;

	/**
	 * Creates the judge of one client's failed releases.
	 * @param closed set once the client is closed: a release is then not sent again
	 * @param events tells the observer and the log of a release that failed transiently
	 * @param replays reads a retry's "not held" answer
	 */
	ReleaseFailures(AtomicBoolean closed, HoldEvents events, ReleaseReplayCheck replays) {
		this.closed = closed;
		this.events = events;
		this.retries = new ReleaseRetrier(closed, events, replays);
	}

	/**
	 * Judges a failed release of a hold's lock.
	 * @param hold the hold
	 * @param failure what the release failed with, unwrapped
	 * @param sentAt when the release was sent, a {@link System#nanoTime()} value
	 * @return {@link LockScripts#NOT_HELD} if the lock is lost (the hold is marked so), {@link #PENDING} if the
	 * release is sent again in the background
	 * @throws DistributedLockException if the release failed otherwise: the lock ends with its lease
	 */
	long judge(Hold hold, RuntimeException failure, long sentAt) {
		if (RedisFailures.isWrongType(failure)) {
			// the key holds something else now: the lock is gone, and what is there is not ours to remove
			hold.markLost("its release found its Redis key '" + hold.redisKey()
					+ "' overwritten with a value that is no lock");
			return LockScripts.NOT_HELD;
		}
		if (RedisFailures.isTransient(failure) && !this.closed.get() && sentAt - hold.confirmedUntil() >= 0
				&& (!hold.autoRenew() || hold.lostReason() == null)) {
			// its lease was confirmed only until before the release was sent (a hard lease that ran out, or
			// renewals that had not reached Redis in time: a pause of the whole process stops the watchdog too),
			// and the watchdog had not told it yet: lost, as far as this client can know, not a release that merely
			// failed (the SPIN model of docs/verification.md found this for auto-renewed holds); an auto-renewed
			// hold told lost already goes on below, to the failed release's WARN that says so
			hold.markLost(hold.autoRenew() ? hold.leaseUnconfirmedAtRelease() : hold.hardLeaseRanOut());
			return LockScripts.NOT_HELD;
		}
		if (RedisFailures.isTransient(failure) && !this.closed.get()) {
			// it may have run; it names this hold's attempt only, so sending it again is harmless
			this.events.later(() -> this.events.releaseFailed(hold, failure));
			this.retries.retry(hold);
			return PENDING;
		}
		throw new DistributedLockException("Could not release lock '" + hold.key() + "'; it ends with its lease of "
				+ hold.leaseMillis() + " ms: " + failure.getMessage(), failure.getCause());
	}

}
