package io.github.distributedlock.core;

import java.util.List;

import io.github.distributedlock.annotation.LockType;

/**
 * Told by a {@link LockClient} when one of its owners starts holding a lock, stops holding it, learns that
 * it lost it, or fails to renew it: what metrics, events and logs need to know of held locks. A re-entry is
 * not a new hold; the callbacks concern an owner's outermost hold only.
 * <p>
 * Acquisitions and releases are told on the thread that completed them, which with the Redis store on Lettuce
 * is often one of Lettuce's I/O threads: those callbacks must be quick, must never block (no Redis call, no
 * I/O) and must not throw. Losses and renewal failures are told on a background thread of the client (the
 * watchdog's), so an observer that publishes them (such as {@link LockLostEventPublisher}) may reach slower
 * code. Callbacks may run concurrently, so implementations are thread-safe. Every method does nothing by
 * default.
 * <p>
 * Clients call the variants with a permit count (1 for a lock, more for a semaphore); by default they call
 * the variants without one, so an observer that does not care about semaphores implements those only.
 */
public interface LockObserver {

	/** An observer that does nothing. */
	LockObserver NONE = new LockObserver() {
	};

	/**
	 * An owner of this client started holding a lock (acquired it in the store or had it handed over).
	 * @param key the lock key, without any store prefix
	 * @param type the lock type
	 */
	default void acquired(String key, LockType type) {
	}

	/**
	 * An owner released its last hold of a lock, or tried to and found it lost.
	 * @param key the lock key
	 * @param type the lock type
	 * @param heldNanos how long it was held, from the acquisition to this release, in nanoseconds
	 * @param lost whether the lock turned out to be lost before this release
	 */
	default void released(String key, LockType type, long heldNanos, boolean lost) {
	}

	/**
	 * This client learned that a lock one of its owners holds was lost: told once per hold, as soon as known
	 * (by the watchdog, when it renews the lock, normally before the holder's release), or when the release
	 * finds it lost; always before {@link #released} of that hold.
	 * @param key the lock key
	 * @param type the lock type
	 * @param reason why, in words, such as "the watchdog found it gone at renewal"
	 */
	default void lost(String key, LockType type, String reason) {
	}

	/**
	 * A renewal of a held lock failed (the store could not be reached); it is retried while the lease lasts.
	 * @param key the lock key
	 * @param type the lock type
	 */
	default void renewalFailed(String key, LockType type) {
	}

	/**
	 * The release of a lock could not reach the store after the work under it completed: the work's result
	 * stands, and the lock ends with its lease unless a retry of the release gets through first.
	 * @param key the lock key
	 * @param type the lock type
	 */
	default void releaseFailed(String key, LockType type) {
	}

	/**
	 * As {@link #acquired(String, LockType)}, with the permit count of the key (1 for a lock, more for a
	 * semaphore); calls it by default.
	 * @param key the lock key, without any store prefix
	 * @param type the lock type
	 * @param permits the key's permit count
	 */
	default void acquired(String key, LockType type, int permits) {
		acquired(key, type);
	}

	/**
	 * As {@link #released(String, LockType, long, boolean)}, with the permit count of the key; calls it by
	 * default.
	 * @param key the lock key
	 * @param type the lock type
	 * @param permits the key's permit count (1 for a lock, more for a semaphore)
	 * @param heldNanos how long it was held, in nanoseconds
	 * @param lost whether the lock turned out to be lost before this release
	 */
	default void released(String key, LockType type, int permits, long heldNanos, boolean lost) {
		released(key, type, heldNanos, lost);
	}

	/**
	 * As {@link #lost(String, LockType, String)}, with the permit count of the key; calls it by default.
	 * @param key the lock key
	 * @param type the lock type
	 * @param permits the key's permit count (1 for a lock, more for a semaphore)
	 * @param reason why, in words
	 */
	default void lost(String key, LockType type, int permits, String reason) {
		lost(key, type, reason);
	}

	/**
	 * As {@link #renewalFailed(String, LockType)}, with the permit count of the key; calls it by default.
	 * @param key the lock key
	 * @param type the lock type
	 * @param permits the key's permit count (1 for a lock, more for a semaphore)
	 */
	default void renewalFailed(String key, LockType type, int permits) {
		renewalFailed(key, type);
	}

	/**
	 * As {@link #releaseFailed(String, LockType)}, with the permit count of the key; calls it by default.
	 * @param key the lock key
	 * @param type the lock type
	 * @param permits the key's permit count (1 for a lock, more for a semaphore)
	 */
	default void releaseFailed(String key, LockType type, int permits) {
		releaseFailed(key, type);
	}

	/**
	 * Returns an observer that tells each of {@code observers} in turn.
	 * @param observers the observers, in the order to call them
	 * @return {@link #NONE} for none, the one observer for one, else a composite
	 */
	static LockObserver of(List<? extends LockObserver> observers) {
		if (observers.isEmpty()) {
			return NONE;
		}
		if (observers.size() == 1) {
			return observers.get(0);
		}
		List<LockObserver> all = List.copyOf(observers);
		return new LockObserver() {

			@Override
			public void acquired(String key, LockType type, int permits) {
				all.forEach((observer) -> observer.acquired(key, type, permits));
			}

			@Override
			public void released(String key, LockType type, int permits, long heldNanos, boolean lost) {
				all.forEach((observer) -> observer.released(key, type, permits, heldNanos, lost));
			}

			@Override
			public void lost(String key, LockType type, int permits, String reason) {
				all.forEach((observer) -> observer.lost(key, type, permits, reason));
			}

			@Override
			public void renewalFailed(String key, LockType type, int permits) {
				all.forEach((observer) -> observer.renewalFailed(key, type, permits));
			}

			@Override
			public void releaseFailed(String key, LockType type, int permits) {
				all.forEach((observer) -> observer.releaseFailed(key, type, permits));
			}

		};
	}

}
