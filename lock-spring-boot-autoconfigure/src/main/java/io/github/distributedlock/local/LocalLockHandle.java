package io.github.distributedlock.local;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLossSignal;
import io.github.distributedlock.core.LockLostException;

/**
 * One hold of a {@link LocalLockClient} lock: closing it releases that hold, from any thread, once.
 */
final class LocalLockHandle implements LockHandle {

	private final LocalLockClient client;

	private final LocalHold hold;

	private final AtomicBoolean closed = new AtomicBoolean();

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
	public boolean isLost() {
		return this.hold.isLost();
	}

	@Override
	public void checkHeld() {
		if (this.hold.isLost()) {
			String reason = this.hold.lostReason;
			throw new LockLostException(key(), (reason != null) ? reason : this.hold.hardLeaseRanOut());
		}
	}

	@Override
	public void checkHeld(Duration margin) {
		checkHeld();
		long now = System.nanoTime();
		LockLossSignal.checkConfirmedFor(key(), this.hold.confirmedUntil(now) - now, margin);
	}

	@Override
	public Instant leaseConfirmedUntil() {
		long now = System.nanoTime();
		return Instant.now().plusNanos(this.hold.confirmedUntil(now) - now);
	}

	@Override
	public CompletionStage<LockLostException> whenLost() {
		return this.hold.lossSignal.stage();
	}

	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			this.client.release(this.hold);
		}
	}

	@Override
	public String toString() {
		return "LockHandle[" + key() + ", " + type() + ", token " + fencingToken() + ", local]";
	}

}
