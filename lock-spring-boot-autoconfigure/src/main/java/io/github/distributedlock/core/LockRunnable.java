package io.github.distributedlock.core;

/**
 * Code that returns nothing, to run while holding a lock, for
 * {@link DistributedLockTemplate#execute(LockDefinition, LockRunnable)}: a block lambda such as
 * {@code () -> { job.run(); }}. Like {@link LockCallback}, the checked exception it may throw is a type
 * parameter, so a caller can catch it.
 *
 * @param <E> the checked exception the code may throw ({@link RuntimeException} when none)
 */
@FunctionalInterface
public interface LockRunnable<E extends Throwable> {

	/**
	 * Runs the guarded code. Called once, on the thread that acquired the lock.
	 * @throws E the code's exception; it propagates unchanged out of the template
	 */
	void run() throws E;

}
