package io.github.distributedlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

/**
 * What the {@link LockHandle}s of the stores share, for {@link LockClient} implementations: a handle of one hold
 * that is closed once (a second close does nothing), tells its loss from the hold's reason and
 * {@link LockLossSignal}, and its confirmed lease from a {@link System#nanoTime()} deadline, without a round trip.
 * A store supplies those and the release. Thread-safe: any thread may close the handle.
 */
public abstract class AbstractLockHandle implements LockHandle {

	private static final CompletableFuture<Void> CLOSED = CompletableFuture.completedFuture(null);

	private final AtomicBoolean closed = new AtomicBoolean();

	/**
	 * Creates an open handle.
	 */
	protected AbstractLockHandle() {
	}

	/**
	 * Returns why the hold was lost, as this client knows now (no round trip).
	 * @return the reason, as a {@link LockLostException} says it; {@code null} while not known lost
	 */
	protected abstract @Nullable String lostReason();

	/**
	 * Returns until when the hold's lease is confirmed: from the send time of its last confirmed acquisition or
	 * renewal.
	 * @param now the {@link System#nanoTime()} of the question
	 * @return a {@link System#nanoTime()} value, in the past if the confirmed lease ended
	 */
	protected abstract long confirmedUntil(long now);

	/**
	 * Returns the signal of the hold's loss, one per hold (re-entries share it).
	 * @return the signal
	 */
	protected abstract LockLossSignal lossSignal();

	/**
	 * Releases the hold, once: {@link #close()} calls it the first time only, on the calling thread.
	 * @throws LockLostException if the lock was lost before this release
	 * @throws DistributedLockException if the store cannot be reached
	 */
	protected abstract void release();

	/**
	 * Releases the hold without blocking where the store can, once: {@link #closeAsync()} calls it the first time
	 * only. By default it runs {@link #release()} on the calling thread.
	 * @return completes when released, or fails as {@link #release()} throws
	 */
	protected CompletionStage<Void> releaseAsync() {
		try {
			release();
			return CLOSED;
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public final boolean isLost() {
		return lostReason() != null;
	}

	@Override
	public final void checkHeld() {
		String reason = lostReason();
		if (reason != null) {
			throw new LockLostException(key(), reason);
		}
	}

	/**
	 * {@inheritDoc} Reads the lease this client confirmed, in {@link System#nanoTime()}: no round trip, no wall
	 * clock.
	 */
	@Override
	public final void checkHeld(Duration margin) {
		checkHeld();
		long now = System.nanoTime();
		LockLossSignal.checkConfirmedFor(key(), confirmedUntil(now) - now, margin);
	}

	@Override
	public final Instant leaseConfirmedUntil() {
		long now = System.nanoTime();
		return Instant.now().plusNanos(confirmedUntil(now) - now);
	}

	@Override
	public final CompletionStage<LockLostException> whenLost() {
		return lossSignal().stage();
	}

	@Override
	public final void close() {
		if (this.closed.compareAndSet(false, true)) {
			release();
		}
	}

	@Override
	public final CompletionStage<Void> closeAsync() {
		if (this.closed.compareAndSet(false, true)) {
			return releaseAsync();
		}
		return CLOSED;
	}

	@Override
	public String toString() {
		return "LockHandle[" + key() + ", " + type() + ", token " + fencingToken() + "]";
	}

}
