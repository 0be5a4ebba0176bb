package io.github.distributedlock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The lock was not acquired within its acquire timeout (or the wait was interrupted): another owner held it
 * the whole time. The guarded code did not run. Its message says which key and how long the caller waited.
 */
public class LockAcquisitionException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	/** The lock key that was not acquired, without the Redis key prefix. */
	private final String key;

	/** How long the caller waited. */
	private final Duration waited;

	/**
	 * Creates the exception for a lock that stayed held by another owner.
	 * @param key the lock key (without the Redis key prefix)
	 * @param waited how long the caller waited before giving up
	 */
	public LockAcquisitionException(String key, Duration waited) {
		this(key, waited, null);
	}

	/**
	 * Creates the exception with a cause, such as the {@link InterruptedException} that ended the wait.
	 * @param key the lock key (without the Redis key prefix)
	 * @param waited how long the caller waited before giving up
	 * @param cause why the wait ended early, or {@code null}
	 */
	public LockAcquisitionException(String key, Duration waited, @Nullable Throwable cause) {
		super("Could not acquire lock '" + key + "' within " + waited.toMillis() + " ms"
				+ ((cause instanceof InterruptedException) ? " (interrupted while waiting)" : ""), cause);
		this.key = key;
		this.waited = waited;
	}

	/**
	 * Returns the lock key that was not acquired.
	 * @return the lock key, without the Redis key prefix
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Returns how long the caller waited.
	 * @return the time spent waiting, never negative
	 */
	public Duration getWaited() {
		return this.waited;
	}

}
