package io.github.distributedlock.redis;

import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;

/**
 * One hold of a {@link RedisLockClient} lock: closing it releases that hold, from any thread, once.
 */
final class RedisLockHandle implements LockHandle {

	private final RedisLockClient client;

	private final Hold hold;

	private final AtomicBoolean closed = new AtomicBoolean();

	RedisLockHandle(RedisLockClient client, Hold hold) {
		this.client = client;
		this.hold = hold;
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

	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			this.client.release(this.hold);
		}
	}

	@Override
	public String toString() {
		return "LockHandle[" + key() + ", " + type() + ", token " + fencingToken() + "]";
	}

}
