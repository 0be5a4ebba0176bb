package io.github.distributedlock.core;

import org.jspecify.annotations.Nullable;

/**
 * Code to run while holding a lock, for {@link DistributedLockTemplate#execute(LockDefinition, LockCallback)}.
 * The checked exception it may throw is a type parameter, so the compiler sees it through the template:
 * <pre class="code">
 * try {
 *     lockTemplate.execute(definition, () -&gt; writeFile(id));   // E inferred as IOException
 * }
 * catch (IOException ex) { ... }
 * </pre>
 * A lambda that throws no checked exception infers {@code E} as {@link RuntimeException}, so nothing needs
 * catching. The template rethrows the exception unchanged, unwrapped. For code that returns nothing, see
 * {@link LockRunnable}.
 *
 * @param <T> the result type
 * @param <E> the checked exception the code may throw ({@link RuntimeException} when none)
 */
@FunctionalInterface
public interface LockCallback<T, E extends Throwable> {

	/**
	 * Runs the guarded code. Called once, on the thread that acquired the lock.
	 * @return the result, returned by the template; may be {@code null}
	 * @throws E the code's exception; it propagates unchanged out of the template
	 */
	@Nullable T doInLock() throws E;

}
