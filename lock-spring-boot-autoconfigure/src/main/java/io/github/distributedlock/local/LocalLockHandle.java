package io.github.distributedlock.local;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.AbstractLockHandle;
import io.github.distributedlock.core.LockLossSignal;
import org.jspecify.annotations.Nullable;

/**
 * One hold of a {@link LocalLockClient} lock: closing it releases that hold, from any thread, once.
 */
final class LocalLockHandle extends AbstractLockHandle {

	private final LocalLockClient client;

	private final LocalHold hold;

	LocalLockHandle(LocalLockClient client, LocalHold hold) {
		this.client = client;
		this.hold = hold;
	}

	@Override
	public String key() {
		return this.hold.key;
	}

	@Override
	public LockType type() {
		return this.hold.type;
	}

	@Override
	public long fencingToken() {
		return this.hold.token;
	}

	@Override
	protected @Nullable String lostReason() {
		if (!this.hold.isLost()) {
			return null;
		}
		String reason = this.hold.lostReason();
		return (reason != null) ? reason : this.hold.hardLeaseRanOut();
	}

	@Override
	protected long confirmedUntil(long now) {
		return this.hold.confirmedUntil(now);
	}

	@Override
	protected LockLossSignal lossSignal() {
		return this.hold.lossSignal();
	}

	@Override
	protected void release() {
		this.client.release(this.hold);
	}

	@Override
	public String toString() {
		return super.toString() + " (local)";
	}

}
