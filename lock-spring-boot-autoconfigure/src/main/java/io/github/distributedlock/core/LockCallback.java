package io.github.distributedlock.core;

import org.jspecify.annotations.Nullable;

/**
 * Code to run while holding a lock, for {@link DistributedLockTemplate#execute(String, LockCallback)}.
 * It may throw any exception, checked ones included: the template rethrows it unchanged, unwrapped.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface LockCallback<T> {

	/**
	 * Runs the guarded code. Called once, on the thread that acquired the lock.
	 * @return the result, returned by the template; may be {@code null}
	 * @throws Throwable anything; it propagates unchanged out of the template
	 */
	@Nullable T doInLock() throws Throwable;

}
