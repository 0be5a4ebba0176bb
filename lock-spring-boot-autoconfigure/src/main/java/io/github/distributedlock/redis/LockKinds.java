package io.github.distributedlock.redis;

import io.github.distributedlock.annotation.LockType;

/**
 * The {@link LockKind}s of one client, bound to its scripts: one per kind, and a {@link SemaphoreKind} per permit
 * count asked for. Thread-safe.
 */
final class LockKinds {

	private final KindScripts with;

	private final ReentrantKind reentrant;

	private final ReadKind read;

	private final WriteKind write;

	LockKinds(KindScripts with) {
		this.with = with;
		this.reentrant = new ReentrantKind(with);
		this.read = new ReadKind(with);
		this.write = new WriteKind(with);
	}

	/**
	 * Returns the kind of a request.
	 * @param type the lock type
	 * @param permits the key's permit count: 1 for a lock, more for a semaphore (of {@link LockType#REENTRANT})
	 * @return the kind
	 */
	LockKind of(LockType type, int permits) {
		if (permits > 1) {
			return new SemaphoreKind(this.with, permits);
		}
		return switch (type) {
			case REENTRANT -> this.reentrant;
			case READ -> this.read;
			case WRITE -> this.write;
		};
	}

}
