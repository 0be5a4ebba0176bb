package io.github.distributedlock.local;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * Where {@link LocalLockClient}s keep their locks and semaphores: the in-JVM counterpart of one Redis server.
 * Clients on one store exclude each other as instances on one Redis do; clients on different stores never meet.
 * A key's state exists only while the lock is held, kept for its minimum hold, or waited for; while it exists,
 * the key is one kind with one permit count, and an acquisition with another count is refused.
 * <p>
 * Fencing tokens: per key (across all permits of a semaphore), every token is strictly greater than every token handed out before for that key
 * by this store. A token is the wall clock in microseconds, raised above the last token, so tokens also keep
 * growing across restarts of the JVM unless its clock is set back by more than the time between them.
 * <p>
 * Thread-safe. For tests and single-instance development: it excludes nothing across JVMs.
 */
public final class LocalLockStore {

	private static final LocalLockStore SHARED = new LocalLockStore();

	private final ConcurrentHashMap<String, LocalKey> locks = new ConcurrentHashMap<>();

	private final AtomicLong lastToken = new AtomicLong();

	/**
	 * Creates an empty store, shared by nobody yet.
	 */
	public LocalLockStore() {
	}

	/**
	 * Returns the store of this class loader that the auto-configuration ({@code distributed-lock.store=local})
	 * uses, so that the application contexts of one JVM exclude each other as instances on one Redis do (their
	 * {@code distributed-lock.key-prefix} keeps them apart, as in Redis).
	 * @return the shared store
	 */
	public static LocalLockStore shared() {
		return SHARED;
	}

	/**
	 * Tells whether a key has any state: held, kept for its minimum hold, or waited for.
	 * @param storeKey the key prefix followed by the lock key
	 * @return {@code true} if the store knows the key
	 */
	public boolean contains(String storeKey) {
		LocalKey lock = this.locks.get(storeKey);
		return lock != null && lock.inUse();
	}

	/**
	 * Counts the threads waiting for a key; for tests and diagnostics.
	 * @param storeKey the key prefix followed by the lock key
	 * @return the number of threads waiting
	 */
	int waiting(String storeKey) {
		LocalKey lock = this.locks.get(storeKey);
		return (lock != null) ? lock.waiting() : 0;
	}

	/**
	 * Acquires for a new owner (not a re-entry), waiting up to {@code timeout}.
	 * @return the new hold, or {@code null} if the timeout passed first
	 * @throws InterruptedException if {@code interruptible} and the thread was interrupted while waiting
	 */
	@Nullable LocalHold acquire(KeyRequest acquisition, @Nullable Duration timeout, boolean interruptible)
			throws InterruptedException {
		String storeKey = acquisition.storeKey();
		while (true) {
			// counted as a user while it acquires, so that the key's state is not dropped under it
			LocalKey lock = this.locks.compute(storeKey, (k, current) -> {
				LocalKey joined = (current != null) ? current : LocalKey.create(k, this, acquisition.permits());
				joined.users++;
				return joined;
			});
			LocalHold hold = null;
			try {
				if (!lock.accepts(acquisition)) {
					// a state of another permit count that nothing holds or waits for any more: it is on its way
					// out of the map (once its last users leave), and the next round makes a fresh one
					continue;
				}
				hold = lock.acquire(acquisition, timeout, interruptible);
				return hold;
			}
			finally {
				if (hold == null) {
					leave(storeKey, lock);
				}
			}
		}
	}

	/**
	 * Ends one use of a key's state (an acquisition that failed, or a hold that left it), and forgets the key
	 * when nobody uses it any more.
	 */
	void leave(String storeKey, LocalKey lock) {
		this.locks.computeIfPresent(storeKey, (k, current) -> {
			if (current != lock) {
				return current;
			}
			current.users--;
			return (current.users == 0) ? null : current;
		});
	}

	/** The next fencing token: the wall clock in microseconds, or one more than the last token if that is not less. */
	long nextToken() {
		long micros = System.currentTimeMillis() * 1000;
		return this.lastToken.updateAndGet((last) -> Math.max(last + 1, micros));
	}

}
