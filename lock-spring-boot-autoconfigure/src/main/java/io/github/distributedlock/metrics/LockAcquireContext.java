package io.github.distributedlock.metrics;

import java.util.Objects;

import io.github.distributedlock.annotation.LockType;
import io.micrometer.observation.Observation;

/**
 * The context of one {@code distributed.lock.acquire} observation: which lock, and how the acquisition ended.
 * Confined to the acquiring thread.
 */
public class LockAcquireContext extends Observation.Context {

	private final String key;

	private final LockType type;

	private final int permits;

	private Outcome outcome = Outcome.ERROR;

	/**
	 * Creates the context of an acquisition.
	 * @param key the lock key
	 * @param type the lock type
	 */
	public LockAcquireContext(String key, LockType type) {
		this(key, type, 1);
	}

	/**
	 * Creates the context of an acquisition of a lock or a semaphore's permit.
	 * @param key the lock key
	 * @param type the lock type
	 * @param permits the key's permit count: 1 for a lock, more for a semaphore
	 */
	public LockAcquireContext(String key, LockType type, int permits) {
		this.key = Objects.requireNonNull(key, "key must not be null");
		this.type = Objects.requireNonNull(type, "type must not be null");
		this.permits = permits;
	}

	/**
	 * Returns the lock key.
	 * @return the key, without any store prefix
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Returns the lock type.
	 * @return the type
	 */
	public LockType getType() {
		return this.type;
	}

	/**
	 * Returns the permit count of the key.
	 * @return 1 for a lock, more for a semaphore
	 */
	public int getPermits() {
		return this.permits;
	}

	/**
	 * Returns how the acquisition ended.
	 * @return the outcome; {@link Outcome#ERROR} until it ended otherwise
	 */
	public Outcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Sets how the acquisition ended.
	 * @param outcome the outcome
	 */
	public void setOutcome(Outcome outcome) {
		this.outcome = Objects.requireNonNull(outcome, "outcome must not be null");
	}

	/**
	 * How an acquisition ended: the {@code outcome} tag, in lower case.
	 */
	public enum Outcome {

		/** The lock was acquired. */
		ACQUIRED,

		/** The acquire timeout passed first. */
		TIMEOUT,

		/** The waiting thread was interrupted. */
		INTERRUPTED,

		/** The acquisition failed, such as Redis being unreachable. */
		ERROR

	}

}
