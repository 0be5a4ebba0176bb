package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

/**
 * The caller's side of an {@link Acquisition} under way: its result, giving up ({@link #cancel()}), and waiting
 * for it on a thread ({@link #await(boolean)}); the steps of the acquisition complete the result, and a step that
 * fails ends it ({@link #guard(Runnable)}). Thread-safe.
 */
abstract class PendingAcquisition {

	final CompletableFuture<@Nullable Hold> result = new CompletableFuture<>();

	volatile boolean cancelled;

	/** Ends the step that waits now, if one does: a turn in the local queue, or a wait in Redis. */
	volatile @Nullable Runnable waitingStep;

	/**
	 * Returns the outcome.
	 * @return completes with the hold (new, or re-entered), or {@code null} if the deadline passed first or it
	 * was {@linkplain #cancel() cancelled}; fails with a {@link io.github.distributedlock.core.LockLostException}
	 * if a re-entry finds the lock lost, an {@link IllegalMonitorStateException} for an upgrade (write while
	 * holding read), an {@link IllegalStateException} if the key is a lock of the other kind, a
	 * {@link DistributedLockException} if Redis could not be reached
	 */
	CompletableFuture<@Nullable Hold> result() {
		return this.result;
	}

	/**
	 * Gives up: a wait ends within a round trip and the result completes with {@code null}, unless the lock was
	 * acquired meanwhile (a try in flight, a grant, a hand-over), which then wins and completes the result with
	 * the hold.
	 */
	void cancel() {
		this.cancelled = true;
		Runnable step = this.waitingStep;
		if (step != null) {
			step.run();
		}
	}

	/**
	 * Tells whether {@link #cancel()} was called.
	 * @return {@code true} once cancelled
	 */
	boolean isCancelled() {
		return this.cancelled;
	}

	/**
	 * Waits on the calling thread for the outcome. An interrupt, when {@code interruptible}, cancels the
	 * acquisition; if the lock was acquired at that moment the hold is returned and the interrupt status set again.
	 * @param interruptible whether an interrupt ends the wait; otherwise it goes on and the interrupt status is
	 * set again on return
	 * @return the hold, or {@code null} if not acquired in time
	 * @throws InterruptedException if interruptible, interrupted, and not acquired
	 * @throws RuntimeException what the acquisition failed with (see {@link #result()})
	 */
	@Nullable Hold await(boolean interruptible) throws InterruptedException {
		if (!interruptible) {
			return ScriptExecutor.await(this.result);
		}
		try {
			return this.result.get();
		}
		catch (ExecutionException ex) {
			throw ScriptExecutor.unwrap(ex);
		}
		catch (InterruptedException ex) {
			cancel();
			// a cancelled acquisition ends within a round trip: with the lock, if a try in flight got it
			Hold hold = ScriptExecutor.await(this.result);
			if (hold == null) {
				throw ex;
			}
			Thread.currentThread().interrupt();
			return hold;
		}
	}

	/** Runs a step; a failure ends the acquisition with it, so that its result always completes. */
	final void guard(Runnable step) {
		try {
			step.run();
		}
		catch (RuntimeException | Error ex) {
			this.result.completeExceptionally(ex);
		}
	}

}
