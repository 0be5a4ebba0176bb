package io.github.distributedlock.core;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;


/**
 * The locks held by the code running on this thread inside {@link DistributedLockTemplate#execute} callbacks
 * and {@code @DistributedLock} methods, so that the code reads its fencing token:
 * <pre class="code">
 * &#64;DistributedLock(name = "stock", key = "#sku")
 * public void restock(String sku, int quantity) {
 *     stock.write(sku, quantity, LockContext.current().fencingToken());
 * }
 * </pre>
 * Each thread sees only its own locks. Static and thread-safe.
 */
public final class LockContext {

	private static final ThreadLocal<Deque<LockHandle>> HANDLES = new ThreadLocal<>();

	private LockContext() {
	}

	/**
	 * Returns the handle of the innermost lock that the running callback or method holds on this thread.
	 * @return the handle
	 * @throws IllegalStateException if no locked callback or method runs on this thread
	 */
	public static LockHandle current() {
		Deque<LockHandle> handles = HANDLES.get();
		if (handles == null || handles.isEmpty()) {
			throw new IllegalStateException("No distributed lock is held by a locked callback or @DistributedLock "
					+ "method on this thread");
		}
		return handles.peek();
	}

	/**
	 * Returns the handle of the lock with this key that a running callback or method holds on this thread,
	 * the innermost one if several do; for multi-key calls.
	 * @param key the lock key, without the Redis key prefix
	 * @return the handle
	 * @throws IllegalStateException if no locked callback or method on this thread holds that key
	 */
	public static LockHandle current(String key) {
		Objects.requireNonNull(key, "key must not be null");
		Deque<LockHandle> handles = HANDLES.get();
		if (handles != null) {
			for (LockHandle handle : handles) {
				if (handle.key().equals(key)) {
					return handle;
				}
			}
		}
		throw new IllegalStateException("Lock '" + key + "' is not held by a locked callback or @DistributedLock "
				+ "method on this thread");
	}

	/**
	 * Checks every lock that the running callbacks and methods hold on this thread, innermost first, with
	 * {@link LockHandle#checkHeld(Duration)}: what a step that must end under all of them (a commit) calls. No
	 * round trip; nothing is allocated for a thread that holds none.
	 * @param margin how long each lock's lease must still be confirmed for; not negative
	 * @throws LockLostException if one of them is lost, or its confirmed lease ends within {@code margin}
	 * @throws IllegalArgumentException if {@code margin} is negative
	 */
	public static void checkHeld(Duration margin) {
		Deque<LockHandle> handles = HANDLES.get();
		if (handles != null) {
			for (LockHandle handle : handles) {
				handle.checkHeld(margin);
			}
		}
	}

	/**
	 * Makes handles current for the code about to run, the last one innermost.
	 * @param acquired the handles, in acquisition order
	 */
	static void push(Iterable<LockHandle> acquired) {
		Deque<LockHandle> handles = HANDLES.get();
		if (handles == null) {
			handles = new ArrayDeque<>(4);
			HANDLES.set(handles);
		}
		for (LockHandle handle : acquired) {
			handles.push(handle);
		}
	}

	/**
	 * Ends what {@link #push} began: removes {@code count} handles, innermost first.
	 * @param count how many were pushed
	 */
	static void pop(int count) {
		Deque<LockHandle> handles = HANDLES.get();
		if (handles == null) {
			return;
		}
		for (int i = 0; i < count && !handles.isEmpty(); i++) {
			handles.pop();
		}
		if (handles.isEmpty()) {
			// no thread-local left behind on pool threads
			HANDLES.remove();
		}
	}

}
