package io.github.distributedlock.redlock;

import java.util.concurrent.CompletionStage;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.AbstractLockHandle;
import io.github.distributedlock.core.LockLossSignal;
import org.jspecify.annotations.Nullable;

/**
 * The handle of one acquisition or re-entry of a Redlock hold: closing it releases that one hold; the last one
 * releases the lock on every node. Thread-safe.
 */
final class RedlockHandle extends AbstractLockHandle {

	private final RedlockHold hold;

	private final RedlockReleases releases;

	RedlockHandle(RedlockHold hold, RedlockReleases releases) {
		this.hold = hold;
		this.releases = releases;
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
		return this.hold.lossSignal;
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
