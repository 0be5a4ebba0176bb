package io.github.distributedlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLossSignal;
import io.github.distributedlock.core.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One hold of a {@link RedisLockClient} lock: closing it releases that hold, from any thread, once.
 */
final class RedisLockHandle implements LockHandle {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	private static final CompletableFuture<Void> CLOSED = CompletableFuture.completedFuture(null);

	private final HoldReleaser releaser;

	private final Hold hold;

	private final AtomicBoolean closed = new AtomicBoolean();

	private RedisLockHandle(HoldReleaser releaser, Hold hold) {
		this.releaser = releaser;
		this.hold = hold;
	}

	/**
	 * Opens a handle of a hold: while it is open, the hold is released only through a handle.
	 * @param releaser releases the hold
	 * @param hold the hold, acquired or re-entered for this handle
	 * @return the handle
	 */
	static RedisLockHandle open(HoldReleaser releaser, Hold hold) {
		synchronized (hold) {
			hold.handles++;
		}
		return new RedisLockHandle(releaser, hold);
	}

	/**
	 * The handle an acquisition ends with, as a future that can be cancelled: cancelling it cancels the
	 * acquisition, and releases a hold it got at the same moment, which nobody would release otherwise.
	 * @param acquisition the acquisition, started
	 * @param releaser releases the hold
	 * @return completes with the handle, or {@code null} if not acquired in time
	 */
	static CompletableFuture<@Nullable LockHandle> whenAcquired(Acquisition acquisition, HoldReleaser releaser) {
		CompletableFuture<@Nullable LockHandle> handle = new CompletableFuture<>();
		acquisition.result().whenComplete((hold, ex) -> {
			if (ex != null) {
				handle.completeExceptionally(ScriptExecutor.unwrap(ex));
				return;
			}
			RedisLockHandle opened = (hold != null) ? open(releaser, hold) : null;
			if (!handle.complete(opened) && opened != null) {
				// cancelled meanwhile: nobody gets this hold
				opened.closeAsync().whenComplete((done, failure) -> {
					if (failure != null) {
						logger.debug("Released lock '" + hold.id.key() + "' acquired as its acquisition was cancelled",
								failure);
					}
				});
			}
		});
		handle.whenComplete((opened, ex) -> {
			if (handle.isCancelled()) {
				acquisition.cancel();
			}
		});
		return handle;
	}

	@Override
	public String key() {
		return this.hold.id.key();
	}

	@Override
	public LockType type() {
		return this.hold.id.type();
	}

	@Override
	public long fencingToken() {
		return this.hold.token;
	}

	@Override
	public boolean isLost() {
		return this.hold.isKnownLost();
	}

	@Override
	public void checkHeld() {
		if (this.hold.isKnownLost()) {
			throw new LockLostException(key(), this.hold.lostReason);
		}
	}

	/**
	 * {@inheritDoc} Reads the lease this client confirmed, in {@link System#nanoTime()}: no round trip, no wall
	 * clock.
	 */
	@Override
	public void checkHeld(Duration margin) {
		checkHeld();
		LockLossSignal.checkConfirmedFor(key(), this.hold.confirmedUntil - System.nanoTime(), margin);
	}

	@Override
	public Instant leaseConfirmedUntil() {
		return Instant.now().plusNanos(this.hold.confirmedUntil - System.nanoTime());
	}

	@Override
	public CompletionStage<LockLostException> whenLost() {
		return this.hold.lossSignal.stage();
	}

	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			ScriptExecutor.await(this.releaser.release(this.hold, true));
		}
	}

	/**
	 * {@inheritDoc} On Lettuce, sends the release and returns; the stage completes on Lettuce's I/O thread.
	 */
	@Override
	public CompletionStage<Void> closeAsync() {
		if (this.closed.compareAndSet(false, true)) {
			return this.releaser.release(this.hold, true);
		}
		return CLOSED;
	}

	@Override
	public String toString() {
		return "LockHandle[" + key() + ", " + type() + ", token " + fencingToken() + "]";
	}

}
