package io.github.distributedlock.core;

import java.util.Objects;

import io.github.distributedlock.annotation.LockType;

import org.springframework.context.ApplicationEvent;

/**
 * Published to the application context as soon as this instance learns that a lock one of its owners holds
 * was lost (the watchdog found it expired or deleted, could not renew it for longer than its lease, or saw its
 * hard lease end), before the holder's release, which will throw {@link LockLostException}. Also published when the loss is
 * first learned at the release. Listeners run on the thread that learned it (the watchdog's): keep them short.
 */
public class LockLostEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	/** The key of the lost lock, without any store prefix. */
	private final String key;

	/** The type of the lost lock. */
	private final LockType type;

	/** Why the lock was lost, in words. */
	private final String reason;

	/** The key's permit count: 1 for a lock, more for a semaphore. */
	private final int permits;

	/**
	 * Creates the event of a lock (one permit).
	 * @param source what learned of the loss and published it
	 * @param key the lock key, without any store prefix
	 * @param type the lock type
	 * @param reason why it was lost
	 */
	public LockLostEvent(Object source, String key, LockType type, String reason) {
		this(source, key, type, 1, reason);
	}

	/**
	 * Creates the event.
	 * @param source what learned of the loss and published it
	 * @param key the lock key, without any store prefix
	 * @param type the lock type ({@code REENTRANT} for a semaphore's permit)
	 * @param permits the key's permit count: 1 for a lock, more for a semaphore
	 * @param reason why it was lost
	 * @throws IllegalArgumentException if {@code permits} is below 1
	 */
	public LockLostEvent(Object source, String key, LockType type, int permits, String reason) {
		super(source);
		this.key = Objects.requireNonNull(key, "key must not be null");
		this.type = Objects.requireNonNull(type, "type must not be null");
		this.reason = Objects.requireNonNull(reason, "reason must not be null");
		if (permits < 1) {
			throw new IllegalArgumentException("permits of the lost lock '" + key + "' must be at least 1, was "
					+ permits);
		}
		this.permits = permits;
	}

	/**
	 * Returns the key of the lost lock.
	 * @return the lock key, without any store prefix
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Returns the name of the lost lock's type, the one the meters (tag {@code type}), the logs and the
	 * {@code distributedlocks} endpoint use.
	 * @return {@code reentrant}, {@code read}, {@code write} or {@code semaphore}
	 */
	public String getType() {
		return this.type.nameWith(this.permits);
	}

	/**
	 * Returns the lock type the lost lock was acquired as: a semaphore's permits are {@code REENTRANT} holds, so this
	 * is {@code REENTRANT} for a semaphore too; {@link #getType()} and {@link #getPermits()} tell them apart.
	 * @return the lock type of the acquisition
	 */
	public LockType getLockType() {
		return this.type;
	}

	/**
	 * Returns how many owners may hold the lost lock's key at once.
	 * @return 1 for a lock, more for a semaphore
	 */
	public int getPermits() {
		return this.permits;
	}

	/**
	 * Returns why the lock was lost.
	 * @return the reason, in words
	 */
	public String getReason() {
		return this.reason;
	}

	@Override
	public String toString() {
		return "LockLostEvent[" + this.key + ", " + getType() + ": " + this.reason + "]";
	}

}
