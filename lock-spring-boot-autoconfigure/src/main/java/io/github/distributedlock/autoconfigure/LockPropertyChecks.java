package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.core.LockDefinition;

/**
 * The checks of {@link DistributedLockProperties}' values as they are bound: a value out of range fails the
 * binding with an {@link InvalidLockPropertyException} that names the property and how to fix it. Each returns
 * the value it checked. Stateless.
 */
final class LockPropertyChecks {

	private LockPropertyChecks() {
	}

	/** The default lease: renewable ({@link LockDefinition#MIN_RENEWABLE_LEASE} or longer). */
	static Duration lease(Duration lease) {
		Objects.requireNonNull(lease, "lease must not be null");
		try {
			LockDefinition.checkLease(lease, true, "default lease (distributed-lock.lease)");
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockPropertyException("distributed-lock.lease", lease, ex.getMessage(),
					"Set distributed-lock.lease to at least " + LockDefinition.MIN_RENEWABLE_LEASE.toMillis()
							+ "ms (the watchdog renews a lease every third of it), such as 30s.");
		}
		return lease;
	}

	/** The default acquire timeout: not negative. */
	static Duration acquireTimeout(Duration acquireTimeout) {
		return notNegative(acquireTimeout, "acquireTimeout", "acquire-timeout", "The default acquire timeout",
				"0 (try once) or a positive duration, such as 5s");
	}

	/** The replica count: not negative. */
	static int syncReplicas(int syncReplicas) {
		if (syncReplicas < 0) {
			throw new InvalidLockPropertyException("distributed-lock.sync-replicas", syncReplicas,
					"The number of replicas to sync each acquisition with (distributed-lock.sync-replicas) must not be "
							+ "negative, was " + syncReplicas,
					"Set distributed-lock.sync-replicas to 0 (off) or to how many replicas must have a lock, such as 1.");
		}
		return syncReplicas;
	}

	/** The replica sync timeout: at least 1 ms. */
	static Duration syncTimeout(Duration syncTimeout) {
		Objects.requireNonNull(syncTimeout, "syncTimeout must not be null");
		if (syncTimeout.toMillis() < 1) {
			throw new InvalidLockPropertyException("distributed-lock.sync-timeout", syncTimeout,
					"The replica sync timeout (distributed-lock.sync-timeout) must be at least 1ms (a Redis WAIT of 0 ms "
							+ "waits for ever), was " + syncTimeout,
					"Set distributed-lock.sync-timeout to a positive number of milliseconds, such as 100ms.");
		}
		return syncTimeout;
	}

	/** The shutdown grace period: not negative. */
	static Duration shutdownTimeout(Duration shutdownTimeout) {
		return notNegative(shutdownTimeout, "shutdownTimeout", "shutdown-timeout", "The shutdown grace period",
				"0 (release at once) or a positive duration, such as 30s");
	}

	/** The commit guard's margin: not negative. */
	static Duration commitGuardMargin(Duration margin) {
		Objects.requireNonNull(margin, "margin must not be null");
		if (margin.isNegative()) {
			throw new InvalidLockPropertyException("distributed-lock.commit-guard.margin", margin,
					"the commit guard's margin must not be negative", "Set it to 0 or a positive duration such as 1s.");
		}
		return margin;
	}

	/**
	 * A duration that must not be negative.
	 * @param field the setter's parameter, for a {@code null}
	 * @param key the property's key under {@code distributed-lock.}
	 * @param what what the property is, for the message
	 * @param allowed the values to set instead
	 */
	private static Duration notNegative(Duration value, String field, String key, String what, String allowed) {
		Objects.requireNonNull(value, () -> field + " must not be null");
		if (value.isNegative()) {
			String property = "distributed-lock." + key;
			throw new InvalidLockPropertyException(property, value,
					what + " (" + property + ") must not be negative, was " + value,
					"Set " + property + " to " + allowed + ".");
		}
		return value;
	}

}
