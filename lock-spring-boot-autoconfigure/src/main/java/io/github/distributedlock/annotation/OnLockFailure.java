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
	 * Do not run the method body, and return what stands for nothing in the method's return type: {@code null};
	 * an empty {@link java.util.Optional} for a method declared to return {@code Optional}; a stage completed with
	 * {@code null} for a {@code CompletionStage} or {@code CompletableFuture}; an empty {@code Mono} or
	 * {@code Flux}; {@code null} from a Kotlin {@code suspend} function (declare its return type nullable, or
	 * {@code Unit}). Not allowed on methods that return a primitive other than {@code void}: the startup fails.
	 */
	SKIP

}
