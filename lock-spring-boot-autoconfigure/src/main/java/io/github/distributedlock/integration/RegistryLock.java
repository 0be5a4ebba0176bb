package io.github.distributedlock.integration;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.integration.support.locks.DistributedLock;

/**
 * The lock {@link DistributedLockRegistry#obtain(Object)} gives: the template's {@link Lock} view of a key, plus
 * Spring Integration's acquisitions with a lease of their own. Two are equal when they are of one registry and
 * one key: they are the same lock (Spring Integration's own registries give equal locks for equal keys).
 */
final class RegistryLock implements DistributedLock {

	private final DistributedLockRegistry registry;

	private final LockClient client;

	private final String key;

	private final Lock view;

	RegistryLock(DistributedLockRegistry registry, LockClient client, String key, Lock view) {
		this.registry = registry;
		this.client = client;
		this.key = key;
		this.view = view;
	}

	@Override
	public void lock() {
		this.view.lock();
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		this.view.lockInterruptibly();
	}

	@Override
	public boolean tryLock() {
		return this.view.tryLock();
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return this.view.tryLock(time, unit);
	}

	/**
	 * Acquires the lock with {@code ttl} as its lease (renewed while held), waiting without limit and without
	 * being interruptible, like {@link #lock()}.
	 * @param ttl the lease; at least {@link io.github.distributedlock.core.LockDefinition#MIN_RENEWABLE_LEASE}
	 * @throws IllegalArgumentException if the lease is too short
	 */
	@Override
	public void lock(Duration ttl) {
		Objects.requireNonNull(ttl, "ttl must not be null");
		try {
			acquire(ttl, null, false);
		}
		catch (InterruptedException ex) {
			// not reachable: a non-interruptible acquire never throws it
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Acquires the lock with {@code ttl} as its lease (renewed while held), waiting up to {@code waitTime}.
	 * @param waitTime how long to wait; zero or negative tries once
	 * @param ttl the lease; at least {@link io.github.distributedlock.core.LockDefinition#MIN_RENEWABLE_LEASE}
	 * @return whether the lock was acquired
	 * @throws InterruptedException if the thread is interrupted before or while waiting
	 * @throws IllegalArgumentException if the lease is too short
	 */
	@Override
	public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
		Objects.requireNonNull(waitTime, "waitTime must not be null");
		Objects.requireNonNull(ttl, "ttl must not be null");
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		Duration timeout = waitTime.isNegative() ? Duration.ZERO : waitTime;
		return acquire(ttl, timeout, true);
	}

	/** Acquires for the calling thread, which releases it by {@link #unlock()}; {@code null} waits without limit. */
	private boolean acquire(Duration ttl, @Nullable Duration timeout, boolean interruptible) throws InterruptedException {
		LockRequest request = LockRequest.builder(this.key)
			.lease(ttl)
			.timeout(timeout)
			.interruptible(interruptible)
			.releasedByThread()
			.build();
		return this.client.acquire(request) != null;
	}

	@Override
	public void unlock() {
		this.view.unlock();
	}

	@Override
	public Condition newCondition() {
		return this.view.newCondition();
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (other instanceof RegistryLock lock) && lock.registry == this.registry && lock.key.equals(this.key);
	}

	@Override
	public int hashCode() {
		return 31 * System.identityHashCode(this.registry) + this.key.hashCode();
	}

	@Override
	public String toString() {
		return "RegistryLock[" + this.key + "]";
	}

}
