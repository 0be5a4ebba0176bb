package io.github.distributedlock.core;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.github.distributedlock.annotation.LockType;

/**
 * A {@link Lock} view of one distributed lock, owned by the thread that locks it. Stateless beyond its key:
 * the hold state lives in the {@link LockClient}.
 */
final class ClientLock implements Lock {

	private final LockClient client;

	private final String key;

	private final LockType type;

	private final Duration lease;

	/**
	 * Creates the view.
	 * @throws IllegalArgumentException if the key is blank
	 */
	ClientLock(LockClient client, String key, LockType type, Duration lease) {
		Objects.requireNonNull(key, "Lock key must not be null");
		if (key.isBlank()) {
			throw new IllegalArgumentException("Lock key must not be blank");
		}
		this.client = client;
		this.key = key;
		this.type = type;
		this.lease = lease;
	}

	@Override
	public void lock() {
		try {
			this.client.acquire(this.key, this.type, this.lease, true, null, false);
		}
		catch (InterruptedException ex) {
			// not reachable: a non-interruptible acquire never throws it
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		this.client.acquire(this.key, this.type, this.lease, true, null, true);
	}

	@Override
	public boolean tryLock() {
		try {
			return this.client.acquire(this.key, this.type, this.lease, true, Duration.ZERO, false);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		Duration timeout = Duration.ofNanos(Math.max(0, unit.toNanos(time)));
		return this.client.acquire(this.key, this.type, this.lease, true, timeout, true);
	}

	@Override
	public void unlock() {
		this.client.release(this.key, this.type);
	}

	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("Distributed lock '" + this.key + "' has no conditions");
	}

	@Override
	public String toString() {
		return "DistributedLock[" + this.key + ", " + this.type + "]";
	}

}
