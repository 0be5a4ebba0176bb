package io.github.distributedlock.core;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * The loss of one hold, as its {@link LockHandle#whenLost()} tells it: for {@link LockClient} implementations,
 * which keep one per hold and {@linkplain #signal signal} it when they learn that the hold was lost (never after
 * a normal release). The stage is made only when somebody asks for it, so a hold whose loss nobody watches
 * costs this object and nothing more. Thread-safe.
 */
public final class LockLossSignal {

	private @Nullable CompletableFuture<LockLostException> lost;

	/** The read-only view of {@link #lost} that {@link #stage()} hands out: one per hold, so callers may key on it. */
	private @Nullable CompletionStage<LockLostException> view;

	private @Nullable LockLostException loss;

	/**
	 * Creates the signal of a hold not lost yet.
	 */
	public LockLossSignal() {
	}

	/**
	 * Returns the stage that completes, with the loss as its value, when the hold is {@linkplain #signal signalled}
	 * lost; at once if it was already. A minimal stage, the same one on every call: its receivers cannot complete
	 * it for the others.
	 * @return the stage of the loss
	 */
	public synchronized CompletionStage<LockLostException> stage() {
		if (this.view == null) {
			this.lost = (this.loss != null) ? CompletableFuture.completedFuture(this.loss) : new CompletableFuture<>();
			this.view = this.lost.minimalCompletionStage();
		}
		return this.view;
	}

	/**
	 * Tells that the hold was lost: completes the stage, the first time only. The stage's dependent actions run
	 * on the calling thread, so callers signal on a background thread, never under a lock of their own.
	 * @param loss the loss, as its holder's release would throw it
	 * @return {@code true} the first time, {@code false} if it was signalled before
	 */
	public boolean signal(LockLostException loss) {
		Objects.requireNonNull(loss, "loss must not be null");
		CompletableFuture<LockLostException> stage;
		synchronized (this) {
			if (this.loss != null) {
				return false;
			}
			this.loss = loss;
			stage = this.lost;
		}
		if (stage != null) {
			stage.complete(loss);
		}
		return true;
	}

	/**
	 * Tells whether the hold was signalled lost.
	 * @return {@code true} once {@link #signal} was called
	 */
	public synchronized boolean isSignalled() {
		return this.loss != null;
	}

	/**
	 * The margin check of {@link LockHandle#checkHeld(Duration)} for a store that knows how long its lease is
	 * confirmed for; call it after the check for a known loss.
	 * @param key the lock key
	 * @param nanosLeft how long the lease is still confirmed for, in nanoseconds (negative once it ended)
	 * @param margin how long it must still be confirmed for; not negative
	 * @throws LockLostException if {@code nanosLeft} is not longer than {@code margin}
	 * @throws IllegalArgumentException if {@code margin} is negative
	 */
	public static void checkConfirmedFor(String key, long nanosLeft, Duration margin) {
		if (margin.isNegative()) {
			throw new IllegalArgumentException("margin must not be negative, was " + margin);
		}
		if (nanosLeft - margin.toNanos() <= 0) {
			throw LockLostException.confirmedLeaseEnding(key, Duration.ofNanos(nanosLeft), margin);
		}
	}

}
