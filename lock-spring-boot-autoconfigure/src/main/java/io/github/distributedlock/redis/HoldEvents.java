package io.github.distributedlock.redis;

import java.util.Objects;

import io.github.distributedlock.core.LockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells a {@link RedisLockClient}'s {@link LockObserver} and its log what happens to its holds: DEBUG for an
 * acquisition and a release, WARN for a loss, which is told once per hold however many paths learn it. An
 * observer that throws is logged and otherwise ignored, so it never breaks a lock operation or the watchdog.
 * Thread-safe.
 */
final class HoldEvents {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	private volatile LockObserver observer = LockObserver.NONE;

	void setObserver(LockObserver observer) {
		this.observer = Objects.requireNonNull(observer, "observer must not be null");
	}

	void acquired(Hold hold) {
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired lock '" + hold.id.key() + "' (" + hold.id.type() + ") for " + hold.owner
					+ ", lease " + hold.leaseMillis + " ms, fencing token " + hold.token);
		}
		LockObserver current = this.observer;
		if (current != LockObserver.NONE) {
			try {
				current.acquired(hold.id.key(), hold.id.type());
			}
			catch (RuntimeException ex) {
				observerFailed(ex);
			}
		}
	}

	/**
	 * The hold's last release; a loss not told yet is told first, so that a lost event comes before the
	 * release of the hold it concerns.
	 */
	void released(Hold hold, boolean lost) {
		if (lost) {
			lost(hold);
		}
		long heldNanos = System.nanoTime() - hold.acquiredAt;
		if (logger.isDebugEnabled()) {
			logger.debug("Released lock '" + hold.id.key() + "' (" + hold.id.type() + ") of " + hold.owner
					+ " after " + heldNanos / 1_000_000 + " ms" + (lost ? ", which was lost" : ""));
		}
		LockObserver current = this.observer;
		if (current != LockObserver.NONE) {
			try {
				current.released(hold.id.key(), hold.id.type(), heldNanos, lost);
			}
			catch (RuntimeException ex) {
				observerFailed(ex);
			}
		}
	}

	/** Tells the loss of a hold marked lost, unless it was told already. */
	void lost(Hold hold) {
		String reason = hold.lostReason;
		if (reason == null || !hold.reportLoss()) {
			return;
		}
		logger.warn("Lock '" + hold.id.key() + "' (" + hold.id.type() + ") held by " + hold.owner + " was lost: "
				+ reason);
		try {
			this.observer.lost(hold.id.key(), hold.id.type(), reason);
		}
		catch (RuntimeException ex) {
			observerFailed(ex);
		}
	}

	void renewalFailed(Hold hold) {
		try {
			this.observer.renewalFailed(hold.id.key(), hold.id.type());
		}
		catch (RuntimeException ex) {
			observerFailed(ex);
		}
	}

	private static void observerFailed(RuntimeException ex) {
		logger.warn("A lock observer failed; the lock operation goes on", ex);
	}

}
