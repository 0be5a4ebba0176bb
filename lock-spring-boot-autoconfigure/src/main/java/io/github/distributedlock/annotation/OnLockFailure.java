package io.github.distributedlock.annotation;

/**
 * What a {@link DistributedLock} method does when its lock is not acquired within the acquire timeout.
 */
public enum OnLockFailure {

	/**
	 * Throw a {@link io.github.distributedlock.core.LockAcquisitionException}; the method body does not run.
	 */
	THROW,

	/**
	 * Do not run the method body and return {@code null}, or an empty {@link java.util.Optional} for a
	 * method declared to return {@code Optional}. Not allowed on methods that return a primitive.
	 */
	SKIP

}
