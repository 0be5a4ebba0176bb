package io.github.distributedlock.redis;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Executor;

import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells a {@link RedisLockClient}'s {@link LockObserver} and its log what happens to its holds: DEBUG for an
 * acquisition and a release, WARN for a loss, which is told once per hold however many paths learn it. An
 * observer that throws is logged and otherwise ignored, so it never breaks a lock operation or the watchdog.
 * Acquisitions and releases are told on the thread that completed them; losses and renewal failures on a
 * background thread ({@link #later}), never on the Redis client's I/O thread that learnt of them: a loss is
 * published as an application event, whose listeners may take their time. Thread-safe.
 */
final class HoldEvents {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	private volatile LockObserver observer = LockObserver.NONE;

	/** Runs the reports of losses and renewal failures; the calling thread until set. */
	private volatile Executor background = Runnable::run;

	void setObserver(LockObserver observer) {
		this.observer = Objects.requireNonNull(observer, "observer must not be null");
	}

	/**
	 * Sets where losses and renewal failures are told.
	 * @param background a background executor, such as the watchdog's
	 */
	void setBackground(Executor background) {
		this.background = Objects.requireNonNull(background, "background must not be null");
	}

	/**
	 * Runs a report on the background executor: for what is learnt on an I/O thread.
	 * @param report the report, such as {@code () -> events.lost(hold)}
	 */
	void later(Runnable report) {
		this.background.execute(report);
	}

	void acquired(Hold hold) {
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired lock '" + hold.key() + "' (" + typeOf(hold) + ") for " + hold.owner()
					+ ", lease " + hold.leaseMillis() + " ms, fencing token " + hold.token());
		}
		LockObserver current = this.observer;
		if (current != LockObserver.NONE) {
			try {
				current.acquired(hold.key(), hold.type(), hold.permits());
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
		long heldNanos = System.nanoTime() - hold.acquiredAt();
		if (logger.isDebugEnabled()) {
			logger.debug("Released lock '" + hold.key() + "' (" + typeOf(hold) + ") of " + hold.owner()
					+ " after " + heldNanos / 1_000_000 + " ms" + (lost ? ", which was lost" : ""));
		}
		LockObserver current = this.observer;
		if (current != LockObserver.NONE) {
			try {
				current.released(hold.key(), hold.type(), hold.permits(), heldNanos, lost);
			}
			catch (RuntimeException ex) {
				observerFailed(ex);
			}
		}
	}

	/** Tells the loss of a hold marked lost, unless it was told already. */
	void lost(Hold hold) {
		String reason = hold.lostReason();
		if (reason == null || !hold.claimLossReport()) {
			return;
		}
		logger.warn("Lock '" + hold.key() + "' (" + typeOf(hold) + ") held by " + hold.owner() + " was lost: "
				+ reason);
		// the holder's work first (whenLost, onLost = INTERRUPT): it is what may still write
		hold.lossSignal().signal(new LockLostException(hold.key(), reason));
		hold.releaseLocalWaiters();
		try {
			this.observer.lost(hold.key(), hold.type(), hold.permits(), reason);
		}
		catch (RuntimeException ex) {
			observerFailed(ex);
		}
	}

	void renewalFailed(Hold hold) {
		try {
			this.observer.renewalFailed(hold.key(), hold.type(), hold.permits());
		}
		catch (RuntimeException ex) {
			observerFailed(ex);
		}
	}

	/**
	 * A release that could not reach Redis: told as a WARN and to the observer; the caller's work stands, unless
	 * the hold was lost already, which the WARN then says instead.
	 * @param hold the hold whose release failed
	 * @param failure why
	 */
	void releaseFailed(Hold hold, RuntimeException failure) {
		String lostReason = hold.lostReason();
		logger.warn("Could not release lock '" + hold.key() + "' (" + typeOf(hold) + ") of " + hold.owner() + " ("
				+ failure.getMessage() + "); " + ((lostReason != null) ? "it was lost already (" + lostReason
						+ "), and its holder was told so" : "the work under it completed and stands")
				+ "; the release is retried while its lease of " + hold.leaseMillis() + " ms lasts, else the lock ends "
				+ "with it");
		try {
			this.observer.releaseFailed(hold.key(), hold.type(), hold.permits());
		}
		catch (RuntimeException ex) {
			observerFailed(ex);
		}
	}

	/**
	 * The type of a hold's lock as the logs name it: {@code REENTRANT}, {@code READ}, {@code WRITE}, or
	 * {@code SEMAPHORE} for a permit of a semaphore (the name the meters and the endpoint use, in capitals).
	 */
	static String typeOf(Hold hold) {
		return typeOf(hold.kind());
	}

	/** Names a lock's kind for the log, as {@link #typeOf(Hold)} does, for a lock not held yet. */
	static String typeOf(LockKind kind) {
		return kind.name().toUpperCase(Locale.ROOT);
	}

	private static void observerFailed(RuntimeException ex) {
		logger.warn("A lock observer failed; the lock operation goes on", ex);
	}

}
