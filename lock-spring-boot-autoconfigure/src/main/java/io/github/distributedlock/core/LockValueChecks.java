package io.github.distributedlock.core;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The checks of the values that {@link LockDefinition} and {@link LockRequest} share, in one place, with one
 * wording. Stateless.
 */
final class LockValueChecks {

	private LockValueChecks() {
	}

	/**
	 * @throws NullPointerException if {@code key} is {@code null}
	 * @throws IllegalArgumentException if it is blank
	 */
	static void key(String key) {
		Objects.requireNonNull(key, "Lock key must not be null");
		if (key.isBlank()) {
			throw new IllegalArgumentException("Lock key must not be blank");
		}
	}

	/**
	 * Tells whether {@link #lease} would accept a lease, without building its message: a request is checked on every
	 * acquisition.
	 */
	static boolean isUsableLease(Duration lease, boolean autoRenew) {
		return !lease.isNegative() && lease.toMillis() >= 1
				&& (!autoRenew || lease.compareTo(LockDefinition.MIN_RENEWABLE_LEASE) >= 0);
	}

	/** See {@link LockDefinition#checkLease}. */
	static void lease(Duration lease, boolean autoRenew, String what) {
		if (lease.isNegative() || lease.isZero()) {
			throw new IllegalArgumentException("The " + what + " must be positive, was " + lease);
		}
		if (lease.toMillis() < 1) {
			throw new IllegalArgumentException("The " + what + " must be at least 1 ms, was " + lease);
		}
		if (autoRenew && lease.compareTo(LockDefinition.MIN_RENEWABLE_LEASE) < 0) {
			throw new IllegalArgumentException("The " + what + " is too short to renew: " + lease.toMillis()
					+ " ms; an auto-renewed lease must be at least " + LockDefinition.MIN_RENEWABLE_LEASE.toMillis()
					+ " ms (or turn auto-renew off for a hard lease)");
		}
	}

	/** See {@link LockDefinition#checkPermits}. */
	static void permits(int permits, LockType type, String what) {
		if (permits < 1) {
			throw new IllegalArgumentException("The permits of " + what + " must be at least 1, was " + permits
					+ " (1 is a lock; more make a semaphore that so many owners hold at once)");
		}
		if (permits > 1 && type != LockType.REENTRANT) {
			throw new IllegalArgumentException("A semaphore (permits = " + permits + ") must be of type REENTRANT, "
					+ what + " is " + type + "; read/write locks have no permits");
		}
	}

	/**
	 * @param value the duration, or {@code null} (not checked)
	 * @param name what it is, capitalised, such as {@code "Acquire timeout"}
	 * @param key the lock key, for the message
	 * @throws IllegalArgumentException if {@code value} is negative
	 */
	static void notNegative(@Nullable Duration value, String name, String key) {
		if (value != null && value.isNegative()) {
			throw new IllegalArgumentException(name + " of lock '" + key + "' must not be negative, was " + value);
		}
	}

}
