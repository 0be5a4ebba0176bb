package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.AbstractLockHandle;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLossSignal;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One hold of a {@link RedisLockClient} lock: closing it releases that hold, from any thread, once.
 */
final class RedisLockHandle extends AbstractLockHandle {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	private final HoldReleaser releaser;

	private final Hold hold;

	/** Whether this handle counts in {@link Hold#handles}: not for a hold its thread releases. */
	private final boolean counted;

	private RedisLockHandle(HoldReleaser releaser, Hold hold, boolean counted) {
		this.releaser = releaser;
		this.hold = hold;
		this.counted = counted;
	}

	/**
	 * Opens a handle of a hold: while it is open, the hold is released only through a handle.
	 * @param releaser releases the hold
	 * @param hold the hold, acquired or re-entered for this handle
	 * @return the handle
	 */
	static RedisLockHandle open(HoldReleaser releaser, Hold hold) {
		hold.openHandle();
		return new RedisLockHandle(releaser, hold, true);
	}

	/**
	 * The handle of a hold that its thread releases ({@code LockRequest.releasedByThread()}): it does not keep
	 * the hold from being released as an orphan when the thread ends.
	 * @param releaser releases the hold
	 * @param hold the hold, acquired or re-entered by its thread
	 * @return the handle
	 */
	static RedisLockHandle ofThread(HoldReleaser releaser, Hold hold) {
		return new RedisLockHandle(releaser, hold, false);
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
						logger.debug("Released lock '" + hold.key() + "' acquired as its acquisition was cancelled",
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
		return this.hold.key();
	}

	@Override
	public LockType type() {
		return this.hold.type();
	}

	@Override
	public long fencingToken() {
		return this.hold.token();
	}

	@Override
	protected @Nullable String lostReason() {
		return this.hold.isKnownLost() ? this.hold.lostReason() : null;
	}

	@Override
	protected long confirmedUntil(long now) {
		return this.hold.confirmedUntil();
	}

	@Override
	protected LockLossSignal lossSignal() {
		return this.hold.lossSignal();
	}

	@Override
	protected void release() {
		ScriptExecutor.await(this.releaser.release(this.hold, this.counted));
	}

	/**
	 * {@inheritDoc} On Lettuce, sends the release and returns; the stage completes on Lettuce's I/O thread.
	 */
	@Override
	protected CompletionStage<Void> releaseAsync() {
		return this.releaser.release(this.hold, this.counted);
	}

}
