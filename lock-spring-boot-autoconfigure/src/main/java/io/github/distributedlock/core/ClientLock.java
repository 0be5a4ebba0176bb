package io.github.distributedlock.core;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

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
			acquire(null, false);
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
		acquire(null, true);
	}

	@Override
	public boolean tryLock() {
		try {
			return acquire(Duration.ZERO, false);
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
		return acquire(timeout, true);
	}

	/**
	 * Acquires for the calling thread, which releases it by {@link #unlock()}, after refusing what the store
	 * lacks.
	 * @param timeout how long to wait; {@code null} without limit
	 * @return whether acquired
	 */
	private boolean acquire(@Nullable Duration timeout, boolean interruptible) throws InterruptedException {
		LockRequest request = LockRequest.builder(this.key)
			.type(this.type)
			.lease(this.lease)
			.timeout(timeout)
			.interruptible(interruptible)
			.releasedByThread()
			.build();
		this.client.capabilities().check(request);
		return this.client.acquire(request) != null;
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
