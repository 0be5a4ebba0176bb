package io.github.distributedlock.core;

import org.jspecify.annotations.Nullable;

/**
 * Base of every exception this library throws about a distributed lock: an invalid lock definition or key,
 * a Redis failure while acquiring or releasing, and the subclasses {@link LockAcquisitionException} and
 * {@link LockLostException}. Unchecked.
 */
public class DistributedLockException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception with a message.
	 * @param message what went wrong, naming the lock key or the method
	 */
	public DistributedLockException(String message) {
		super(message);
	}

	/**
	 * Creates an exception with a message and a cause.
	 * @param message what went wrong, naming the lock key or the method
	 * @param cause the underlying failure, such as a Redis connection error
	 */
	public DistributedLockException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
