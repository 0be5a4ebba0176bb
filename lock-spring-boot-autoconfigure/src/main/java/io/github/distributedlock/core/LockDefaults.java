package io.github.distributedlock.core;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.annotation.OnLockLoss;

/**
 * The configured defaults of a template ({@code distributed-lock.lease} and {@code distributed-lock.acquire-timeout}),
 * and what they make of a {@link LockDefinition} that leaves them out. Immutable.
 *
 * @param lease lease of definitions that set none
 * @param acquireTimeout acquire timeout of definitions that set none
 * @param onLost reaction to a loss of definitions that set none ({@code distributed-lock.on-lost})
 */
record LockDefaults(Duration lease, Duration acquireTimeout, OnLockLoss onLost) {

	/**
	 * Checks the defaults.
	 * @throws IllegalArgumentException if a default is out of range; the message names the property
	 */
	LockDefaults {
		Objects.requireNonNull(lease, "defaultLease must not be null");
		Objects.requireNonNull(acquireTimeout, "defaultAcquireTimeout must not be null");
		Objects.requireNonNull(onLost, "defaultOnLost must not be null");
		LockDefinition.checkLease(lease, true, "default lease (distributed-lock.lease)");
		if (acquireTimeout.isNegative()) {
			throw new IllegalArgumentException(
					"The default acquire timeout (distributed-lock.acquire-timeout) must not be negative, was "
							+ acquireTimeout);
		}
	}

	/** Defaults that let the work run on when a lock is lost ({@link OnLockLoss#NONE}). */
	LockDefaults(Duration lease, Duration acquireTimeout) {
		this(lease, acquireTimeout, OnLockLoss.NONE);
	}

	/** Whether the work under the definition's lock is stopped when the lock is lost. */
	boolean interruptsOnLoss(LockDefinition definition) {
		return ((definition.onLost() != null) ? definition.onLost() : this.onLost) == OnLockLoss.INTERRUPT;
	}

	/** The definition's lease, or the default. */
	Duration leaseOf(LockDefinition definition) {
		return (definition.lease() != null) ? definition.lease() : this.lease;
	}

	/** The definition's acquire timeout, or the default. */
	Duration acquireTimeoutOf(LockDefinition definition) {
		return (definition.acquireTimeout() != null) ? definition.acquireTimeout() : this.acquireTimeout;
	}

	/**
	 * What is left of the definition's acquire timeout since {@code start}: every lock of a multi-key call shares
	 * one deadline measured from the call.
	 * @param start the {@link System#nanoTime()} of the call
	 * @return the time left, never negative
	 */
	Duration remainingOf(LockDefinition definition, long start) {
		Duration remaining = acquireTimeoutOf(definition).minus(LockedRun.since(start));
		return remaining.isNegative() ? Duration.ZERO : remaining;
	}

	/**
	 * The request of a definition, with these defaults for what it leaves out, and what is left of its acquire
	 * timeout since {@code start} (see {@link #remainingOf}).
	 */
	LockRequest.Builder requestOf(LockDefinition definition, long start) {
		return LockRequest.builder(definition)
			.lease(leaseOf(definition))
			.onLost((definition.onLost() != null) ? definition.onLost() : this.onLost)
			.timeout(remainingOf(definition, start));
	}

}
