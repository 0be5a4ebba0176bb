package io.github.distributedlock.core;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockLoss;

/**
 * What a {@link DistributedLockTemplate} hands out besides running code under locks: handles of holds
 * ({@link #acquire(LockDefinition)}, {@link #tryAcquire(LockDefinition)}), {@link Lock} and {@link ReadWriteLock}
 * views, and its configuration. Its public methods are the template's (this class is not public). Thread-safe.
 */
abstract class TemplateLockAccess {

	/** Acquires on the template's client, with its defaults. */
	final LockAcquirer acquirer;

	TemplateLockAccess(LockClient client, LockDefaults defaults) {
		this.acquirer = new LockAcquirer(Objects.requireNonNull(client, "client must not be null"), defaults);
	}

	/**
	 * Acquires the lock that {@code definition} describes for the calling thread, waiting up to its acquire
	 * timeout, and returns its handle: its {@linkplain LockHandle#fencingToken() fencing token}, and
	 * {@link LockHandle#close()} to release it, from this or any other thread.
	 * <pre class="code">
	 * try (LockHandle lock = lockTemplate.acquire(LockDefinition.of("report"))) {
	 *     store.save(report, lock.fencingToken());
	 * }
	 * </pre>
	 * @param definition what to lock and how
	 * @return the handle of the hold, never {@code null}
	 * @throws LockAcquisitionException if the lock was not acquired within the acquire timeout, or the wait
	 * was interrupted (the interrupt flag is set again)
	 * @throws IllegalMonitorStateException if the definition asks to upgrade a held read lock to a write lock
	 * @throws DistributedLockException if Redis could not be reached; the lock is not held
	 */
	public LockHandle acquire(LockDefinition definition) {
		return this.acquirer.acquire(definition);
	}

	/**
	 * Like {@link #acquire(LockDefinition)}, but returns an empty {@link Optional} when the lock was not
	 * acquired within the definition's acquire timeout.
	 * @param definition what to lock and how
	 * @return the handle of the hold, or empty if not acquired in time
	 * @throws LockAcquisitionException if the wait was interrupted (the interrupt flag is set again)
	 * @throws IllegalMonitorStateException if the definition asks to upgrade a held read lock to a write lock
	 * @throws DistributedLockException if Redis could not be reached; the lock is not held
	 */
	public Optional<LockHandle> tryAcquire(LockDefinition definition) {
		return Optional.ofNullable(this.acquirer.tryAcquire(definition));
	}

	/**
	 * Returns a reentrant {@link Lock} on {@code key}, owned by the thread that locks it, with the default
	 * lease renewed while held. {@link Lock#lock()} waits without limit, {@link Lock#unlock()} by a thread
	 * that does not hold it throws {@link IllegalMonitorStateException}, an unlock after the lease was lost
	 * throws {@link LockLostException}, and {@link Lock#newCondition()} throws
	 * {@link UnsupportedOperationException}. The view is cheap and holds no state of its own: any number
	 * may exist for one key.
	 * @param key the lock key
	 * @return the lock view, thread-safe
	 * @throws IllegalArgumentException if the key is blank
	 */
	public Lock getLock(String key) {
		return new ClientLock(this.acquirer.client(), key, LockType.REENTRANT, this.acquirer.defaults().lease());
	}

	/**
	 * Returns a {@link ReadWriteLock} on {@code key}: many readers at once, or one writer. Both sides are
	 * reentrant and behave like {@link #getLock(String)}; the write holder may also take the read side
	 * (downgrade), while a reader asking for the write side gets an {@link IllegalMonitorStateException}
	 * (no upgrade).
	 * @param key the lock key
	 * @return the read/write lock view, thread-safe
	 * @throws IllegalArgumentException if the key is blank
	 */
	public ReadWriteLock getReadWriteLock(String key) {
		return ClientReadWriteLock.of(this.acquirer.client(), key, this.acquirer.defaults().lease());
	}

	/**
	 * Returns the reaction to a lost lock of definitions that set none.
	 * @return the default {@link OnLockLoss}
	 */
	public OnLockLoss getDefaultOnLost() {
		return this.acquirer.defaults().onLost();
	}

	/**
	 * Returns the client this template runs on.
	 * @return the lock client
	 */
	public LockClient getClient() {
		return this.acquirer.client();
	}

	/**
	 * Returns the lease of definitions that set none.
	 * @return the default lease
	 */
	public Duration getDefaultLease() {
		return this.acquirer.defaults().lease();
	}

	/**
	 * Returns the acquire timeout of definitions that set none.
	 * @return the default acquire timeout
	 */
	public Duration getDefaultAcquireTimeout() {
		return this.acquirer.defaults().acquireTimeout();
	}

}
