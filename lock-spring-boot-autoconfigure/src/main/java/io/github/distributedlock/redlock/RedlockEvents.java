package io.github.distributedlock.redlock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What the Redlock store tells about its holds: to the {@link LockObserver} (meters, {@code LockLostEvent}s), to
 * the log, and, for a loss, to the hold's {@code whenLost()} (which {@code onLost = INTERRUPT} and the commit
 * guard listen to) first. A loss also frees the lock on every node. Thread-safe.
 */
final class RedlockEvents {

	private static final Log logger = LogFactory.getLog(RedlockEvents.class);

	private final RedlockCommands commands;

	private final Executor background;

	private volatile LockObserver observer = LockObserver.NONE;

	RedlockEvents(RedlockCommands commands, Executor background) {
		this.commands = commands;
		this.background = background;
	}

	void setObserver(LockObserver observer) {
		this.observer = observer;
	}

	void acquired(RedlockHold hold) {
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired Redlock '" + hold.id.key() + "' for " + hold.attempt + ", fencing token "
					+ hold.token + ", valid for " + (hold.validUntil() - System.nanoTime()) / 1_000_000 + " ms");
		}
		tell(() -> this.observer.acquired(hold.id.key(), LockType.REENTRANT, 1));
	}

	void released(RedlockHold hold, boolean lost) {
		long heldNanos = System.nanoTime() - hold.acquiredAt;
		tell(() -> this.observer.released(hold.id.key(), LockType.REENTRANT, 1, heldNanos, lost));
	}

	void renewalFailed(RedlockHold hold) {
		tell(() -> this.observer.renewalFailed(hold.id.key(), LockType.REENTRANT, 1));
	}

	void releaseFailed(RedlockHold hold) {
		tell(() -> this.observer.releaseFailed(hold.id.key(), LockType.REENTRANT, 1));
	}

	/**
	 * Tells a hold's loss, the first time only and not after its release: marks it, stops its renewal, frees it on
	 * every node, and tells the holder's {@code whenLost()}, the log and the observer on a background thread.
	 * @param hold the hold
	 * @param reason why it was lost
	 * @return completes when the nodes answered the release (at once if it was not lost now); never fails
	 */
	CompletableFuture<?> lost(RedlockHold hold, String reason) {
		return lost(hold, reason, false);
	}

	/**
	 * Tells a hold's loss as {@link #lost(RedlockHold, String)} does, telling it on the calling thread when the
	 * client closes (its background thread is stopping).
	 * @param hold the hold
	 * @param reason why it was lost
	 * @param here whether to tell on the calling thread
	 * @return completes when the nodes answered the release; never fails
	 */
	CompletableFuture<?> lost(RedlockHold hold, String reason, boolean here) {
		if (!hold.markLost(reason)) {
			return CompletableFuture.completedFuture(null);
		}
		hold.stopRenewal();
		if (here) {
			tellLossNow(hold, reason);
		}
		else {
			tellLoss(hold, reason);
		}
		return this.commands.release(hold.keys, hold.attempt, hold.leaseMillis, hold.answered);
	}

	/**
	 * Tells the loss of a hold that its own release found lost (already freed on the nodes).
	 * @param hold the hold, released
	 * @param reason why it was lost
	 */
	void lostAtRelease(RedlockHold hold, String reason) {
		hold.markLostAtRelease(reason);
		tellLoss(hold, reason);
	}

	private void tellLoss(RedlockHold hold, String reason) {
		try {
			this.background.execute(() -> tellLossNow(hold, reason));
		}
		catch (RuntimeException ex) {
			// the client is closing: tell on this thread
			tellLossNow(hold, reason);
		}
	}

	private void tellLossNow(RedlockHold hold, String reason) {
		logger.warn("Redlock '" + hold.id.key() + "' held by " + hold.attempt + " was lost: " + reason);
		// the holder's work first (whenLost, onLost = INTERRUPT): it is what may still write
		hold.lossSignal().signal(new LockLostException(hold.id.key(), reason));
		tell(() -> this.observer.lost(hold.id.key(), LockType.REENTRANT, 1, reason));
	}

	private static void tell(Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			logger.warn("A LockObserver failed; the lock is unaffected", ex);
		}
	}

}
