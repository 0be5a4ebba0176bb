package io.github.distributedlock.local;

import java.util.Locale;
import java.util.Objects;

import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells a {@link LocalLockClient}'s {@link LockObserver} and its log what happens to its holds, as the Redis
 * store does: DEBUG for an acquisition and a release, WARN for a loss, told once per hold however many paths
 * learn it, and before the release of the hold it concerns. An observer that throws is logged and otherwise
 * ignored, so it never breaks a lock operation. Acquisitions and releases are told on the thread that did them;
 * a loss learnt under a key's mutex (a hard lease that ran out, the client's close) on a pool thread, never
 * under the mutex. Nothing is renewed in one JVM, so renewal and release failures are never told. Thread-safe.
 */
final class LocalHoldEvents {

	private static final Log logger = LogFactory.getLog(LocalLockClient.class);

	private volatile LockObserver observer = LockObserver.NONE;

	void setObserver(LockObserver observer) {
		this.observer = Objects.requireNonNull(observer, "observer must not be null");
	}

	/** A new hold (not a re-entry). */
	void acquired(LocalHold hold) {
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired lock '" + hold.key + "' (" + typeOf(hold) + ") for " + hold.owner + ", lease "
					+ hold.leaseMillis + " ms, fencing token " + hold.token + " (local store)");
		}
		try {
			this.observer.acquired(hold.key, hold.type, hold.permits);
		}
		catch (RuntimeException ex) {
			observerFailed(ex);
		}
	}

	/** The hold's last release; a loss not told yet is told first. */
	void released(LocalHold hold) {
		boolean lost = hold.lostReason() != null;
		if (lost) {
			lost(hold);
		}
		long heldNanos = System.nanoTime() - hold.acquiredAt;
		if (logger.isDebugEnabled()) {
			logger.debug("Released lock '" + hold.key + "' (" + typeOf(hold) + ") of " + hold.owner + " after "
					+ heldNanos / 1_000_000 + " ms" + (lost ? ", which was lost" : "") + " (local store)");
		}
		try {
			this.observer.released(hold.key, hold.type, hold.permits, heldNanos, lost);
		}
		catch (RuntimeException ex) {
			observerFailed(ex);
		}
	}

	/**
	 * Tells the loss of a hold marked lost, unless it was told already: first to the holder's work (its handles'
	 * {@code whenLost()}), then to the log and the observer. A release waits for a loss being told on another
	 * thread (a release is not on a Redis client's I/O thread here, so it may wait).
	 */
	void lost(LocalHold hold) {
		hold.reportLossOnce((reason) -> {
			hold.lossSignal().signal(new LockLostException(hold.key, reason));
			logger.warn("Lock '" + hold.key + "' (" + typeOf(hold) + ") held by " + hold.owner + " was lost: " + reason
					+ " (local store)");
			try {
				this.observer.lost(hold.key, hold.type, hold.permits, reason);
			}
			catch (RuntimeException ex) {
				observerFailed(ex);
			}
		});
	}

	private static void observerFailed(RuntimeException ex) {
		logger.warn("A lock observer failed; the lock operation goes on", ex);
	}

	/** The type of a hold's lock as the logs name it: as the meters and the endpoint do, in capitals. */
	private static String typeOf(LocalHold hold) {
		return hold.type.nameWith(hold.permits).toUpperCase(Locale.ROOT);
	}

}
