package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.AbstractLockHandle;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLossSignal;
import org.jspecify.annotations.Nullable;

/**
 * The handle of one acquisition or re-entry of a Redlock hold ({@code distributed-lock.store=redlock}): closing
 * it releases that one hold; the last one releases the lock on every node. Every {@link LockHandle} of the
 * Redlock store is one, so code that needs what only this store has casts to it, such as
 * {@link #remainingValidity()}. Thread-safe.
 */
public final class RedlockHandle extends AbstractLockHandle {

	private final RedlockHold hold;

	private final RedlockReleases releases;

	RedlockHandle(RedlockHold hold, RedlockReleases releases) {
		this.hold = hold;
		this.releases = releases;
	}

	/**
	 * Returns how long a quorum of nodes holds the lock for this hold from now, as this instance knows it without
	 * a round trip: the validity of the last acquisition or renewal confirmed on a quorum
	 * ({@code start + lease - drift}, the start taken before its commands were sent), on this instance's
	 * monotonic clock ({@link System#nanoTime()}), less the time since. The same instant as
	 * {@link #leaseConfirmedUntil()}, without a wall-clock conversion. Safe to call from any thread.
	 * @return the remaining validity, {@link Duration#ZERO} once it ended (the hold is then lost, or about to be
	 * told lost, unless a renewal confirms it again)
	 */
	public Duration remainingValidity() {
		long left = this.hold.validUntil() - System.nanoTime();
		return (left > 0) ? Duration.ofNanos(left) : Duration.ZERO;
	}

	@Override
	public String key() {
		return this.hold.id.key();
	}

	@Override
	public LockType type() {
		return LockType.REENTRANT;
	}

	@Override
	public long fencingToken() {
		return this.hold.token;
	}

	@Override
	protected @Nullable String lostReason() {
		return this.hold.lostReason();
	}

	@Override
	protected long confirmedUntil(long now) {
		return this.hold.validUntil();
	}

	@Override
	protected LockLossSignal lossSignal() {
		return this.hold.lossSignal();
	}

	@Override
	protected void release() {
		this.hold.removeByThread(this);
		this.releases.release(this.hold);
	}

	@Override
	protected CompletionStage<Void> releaseAsync() {
		this.hold.removeByThread(this);
		return this.releases.releaseAsync(this.hold);
	}

}
