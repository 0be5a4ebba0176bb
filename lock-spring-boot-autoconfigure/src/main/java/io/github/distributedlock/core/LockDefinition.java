package io.github.distributedlock.core;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockLoss;
import org.jspecify.annotations.Nullable;

/**
 * What to lock and how: the lock key, its type, lease, acquire timeout, whether the lease is renewed, a
 * minimum hold, and what happens to the work when the lock is lost.
 * An immutable value, safe to share between threads and to keep in a constant.
 * <pre class="code">
 * LockDefinition definition = LockDefinition.builder("invoice:" + id)
 *         .lease(Duration.ofSeconds(10))
 *         .acquireTimeout(Duration.ZERO)   // try once
 *         .build();
 * </pre>
 *
 * @param key the lock key, without the Redis key prefix (such as {@code "order:42"}); not blank
 * @param type the kind of lock
 * @param lease how long the lock lives in Redis without renewal, or {@code null} for the template's default
 * (positive; with auto-renew at least {@link #MIN_RENEWABLE_LEASE})
 * @param acquireTimeout how long to wait for the lock, {@link Duration#ZERO} to try once, or {@code null}
 * for the template's default (not negative)
 * @param autoRenew whether the watchdog extends the lease while the lock is held; {@code false} makes the
 * lease a hard limit
 * @param holdAtLeast the minimum hold: the lock stays taken until at least this long after it was acquired,
 * even when released sooner (the release then only shortens the lease to what is left, and drops the owner,
 * so that nobody, the same thread included, acquires it before then); {@code null} or zero for none; not
 * negative
 * @param onLost what happens to the running work when this client learns that the lock was lost (see
 * {@link OnLockLoss}), or {@code null} for the template's default ({@code distributed-lock.on-lost})
 * @param permits how many owners may hold the key at once: {@code 1} (the default) for a lock, more for a
 * semaphore, each holder with a permit and a lease of its own (see {@link Builder#permits(int)}); at least 1,
 * and more than 1 only with {@link LockType#REENTRANT}
 */
public record LockDefinition(String key, LockType type, @Nullable Duration lease, @Nullable Duration acquireTimeout,
		boolean autoRenew, @Nullable Duration holdAtLeast, @Nullable OnLockLoss onLost, int permits) {

	/**
	 * The shortest lease that may be renewed automatically: renewal runs every lease/3, and a shorter lease
	 * leaves no room for one Redis round trip and scheduling delays before it would run out.
	 */
	public static final Duration MIN_RENEWABLE_LEASE = Duration.ofMillis(100);

	/**
	 * Validates the definition.
	 * @param key the lock key, without the Redis key prefix; not blank
	 * @param type the kind of lock
	 * @param lease the lease, or {@code null} for the template's default
	 * @param acquireTimeout the acquire timeout, or {@code null} for the template's default
	 * @param autoRenew whether the watchdog extends the lease while the lock is held
	 * @param holdAtLeast the minimum hold, or {@code null} for none
	 * @param onLost what happens to the work when the lock is lost, or {@code null} for the template's default
	 * @param permits how many owners may hold the key at once; 1 for a lock
	 * @throws IllegalArgumentException if the key is blank, the lease is not positive or too short to renew,
	 * the acquire timeout or minimum hold is negative, {@code permits} is less than 1, or more than 1 with
	 * another type than {@link LockType#REENTRANT}; the message names the key and the value
	 * @throws NullPointerException if {@code key} or {@code type} is {@code null}
	 */
	public LockDefinition {
		LockValueChecks.key(key);
		Objects.requireNonNull(type, "Lock type must not be null");
		if (lease != null) {
			LockValueChecks.lease(lease, autoRenew, "lease of lock '" + key + "'");
		}
		LockValueChecks.notNegative(acquireTimeout, "Acquire timeout", key);
		LockValueChecks.notNegative(holdAtLeast, "Minimum hold (holdAtLeast)", key);
		LockValueChecks.permits(permits, type, "lock '" + key + "'");
	}

	/**
	 * Creates a definition of a lock (one permit).
	 * @param key the lock key, without the Redis key prefix; not blank
	 * @param type the kind of lock
	 * @param lease the lease, or {@code null} for the template's default
	 * @param acquireTimeout the acquire timeout, or {@code null} for the template's default
	 * @param autoRenew whether the watchdog extends the lease while the lock is held
	 * @param holdAtLeast the minimum hold, or {@code null} for none
	 * @param onLost what happens to the work when the lock is lost, or {@code null} for the template's default
	 * @throws IllegalArgumentException as the canonical constructor does
	 */
	public LockDefinition(String key, LockType type, @Nullable Duration lease, @Nullable Duration acquireTimeout,
			boolean autoRenew, @Nullable Duration holdAtLeast, @Nullable OnLockLoss onLost) {
		this(key, type, lease, acquireTimeout, autoRenew, holdAtLeast, onLost, 1);
	}

	/**
	 * Creates a definition with the template's default reaction to a loss.
	 * @param key the lock key, without the Redis key prefix; not blank
	 * @param type the kind of lock
	 * @param lease the lease, or {@code null} for the template's default
	 * @param acquireTimeout the acquire timeout, or {@code null} for the template's default
	 * @param autoRenew whether the watchdog extends the lease while the lock is held
	 * @param holdAtLeast the minimum hold, or {@code null} for none
	 * @throws IllegalArgumentException as the canonical constructor does
	 */
	public LockDefinition(String key, LockType type, @Nullable Duration lease, @Nullable Duration acquireTimeout,
			boolean autoRenew, @Nullable Duration holdAtLeast) {
		this(key, type, lease, acquireTimeout, autoRenew, holdAtLeast, null, 1);
	}

	/**
	 * Creates a definition without a minimum hold.
	 * @param key the lock key, without the Redis key prefix; not blank
	 * @param type the kind of lock
	 * @param lease the lease, or {@code null} for the template's default
	 * @param acquireTimeout the acquire timeout, or {@code null} for the template's default
	 * @param autoRenew whether the watchdog extends the lease while the lock is held
	 * @throws IllegalArgumentException as the canonical constructor does
	 */
	public LockDefinition(String key, LockType type, @Nullable Duration lease, @Nullable Duration acquireTimeout,
			boolean autoRenew) {
		this(key, type, lease, acquireTimeout, autoRenew, null, null, 1);
	}

	/**
	 * Returns a definition of a reentrant lock with the template's default lease and acquire timeout and
	 * auto-renew.
	 * @param key the lock key, without the Redis key prefix
	 * @return the definition
	 * @throws IllegalArgumentException if the key is blank
	 */
	public static LockDefinition of(String key) {
		return builder(key).build();
	}

	/**
	 * Starts a definition of a reentrant, auto-renewed lock with the template's defaults.
	 * @param key the lock key, without the Redis key prefix
	 * @return a builder; not thread-safe
	 */
	public static Builder builder(String key) {
		return new Builder(key);
	}

	/**
	 * Checks that a lease is usable.
	 * @param lease the lease
	 * @param autoRenew whether it is to be renewed
	 * @param what what the lease belongs to, for the message (such as {@code "lease of lock 'x'"})
	 * @throws IllegalArgumentException if the lease is zero or negative, or shorter than
	 * {@link #MIN_RENEWABLE_LEASE} while auto-renewed
	 */
	public static void checkLease(Duration lease, boolean autoRenew, String what) {
		LockValueChecks.lease(lease, autoRenew, what);
	}

	/**
	 * Tells whether this definition is a semaphore: more than one permit.
	 * @return {@code true} when {@link #permits()} is more than 1
	 */
	public boolean isSemaphore() {
		return this.permits > 1;
	}

	/**
	 * Checks a permit count.
	 * @param permits how many owners may hold the key at once
	 * @param type the lock type it goes with
	 * @param what what the count belongs to, for the message (such as {@code "lock 'x'"})
	 * @throws IllegalArgumentException if {@code permits} is less than 1, or more than 1 with another type than
	 * {@link LockType#REENTRANT}
	 */
	public static void checkPermits(int permits, LockType type, String what) {
		LockValueChecks.permits(permits, type, what);
	}

	/**
	 * Builds a {@link LockDefinition}. Not thread-safe; the definition it builds is.
	 */
	public static final class Builder {

		private final String key;

		private LockType type = LockType.REENTRANT;

		private @Nullable Duration lease;

		private @Nullable Duration acquireTimeout;

		private boolean autoRenew = true;

		private @Nullable Duration holdAtLeast;

		private @Nullable OnLockLoss onLost;

		private int permits = 1;

		private Builder(String key) {
			this.key = key;
		}

		/**
		 * Sets the kind of lock; {@link LockType#REENTRANT} by default.
		 * @param type the lock type
		 * @return this builder
		 */
		public Builder type(LockType type) {
			this.type = type;
			return this;
		}

		/**
		 * Sets the lease; by default the template's ({@code distributed-lock.lease}).
		 * @param lease how long the lock lives in Redis without renewal, or {@code null} for the default
		 * @return this builder
		 */
		public Builder lease(@Nullable Duration lease) {
			this.lease = lease;
			return this;
		}

		/**
		 * Sets the acquire timeout; by default the template's ({@code distributed-lock.acquire-timeout}).
		 * @param acquireTimeout how long to wait, {@link Duration#ZERO} to try once, or {@code null} for the
		 * default
		 * @return this builder
		 */
		public Builder acquireTimeout(@Nullable Duration acquireTimeout) {
			this.acquireTimeout = acquireTimeout;
			return this;
		}

		/**
		 * Sets whether the lease is renewed while held; {@code true} by default.
		 * @param autoRenew {@code false} for a hard lease
		 * @return this builder
		 */
		public Builder autoRenew(boolean autoRenew) {
			this.autoRenew = autoRenew;
			return this;
		}

		/**
		 * Sets the minimum hold: the lock stays taken until at least this long after it was acquired, even
		 * when released sooner; none by default. For jobs that instances with slightly different clocks start
		 * at about the same time (a {@code @Scheduled} job): the late one finds it still taken.
		 * @param holdAtLeast the minimum hold, not negative, or {@code null} for none
		 * @return this builder
		 */
		public Builder holdAtLeast(@Nullable Duration holdAtLeast) {
			this.holdAtLeast = holdAtLeast;
			return this;
		}

		/**
		 * Sets what happens to the running work when this client learns that the lock was lost;
		 * {@code distributed-lock.on-lost} by default. {@link OnLockLoss#INTERRUPT} interrupts the thread of a
		 * blocking {@code execute}, fails the future of {@code executeAsync}, and signals an error (cancelling the
		 * action) in a reactive {@code execute}.
		 * <pre class="code">
		 * LockDefinition.builder("report").onLost(OnLockLoss.INTERRUPT).build();
		 * </pre>
		 * @param onLost the reaction, or {@code null} for the default
		 * @return this builder
		 */
		public Builder onLost(@Nullable OnLockLoss onLost) {
			this.onLost = onLost;
			return this;
		}

		/**
		 * Sets how many owners may hold the key at once; 1 (a lock) by default. With more than one the key is a
		 * <em>semaphore</em>: each owner holds one permit with a lease of its own (renewed by the watchdog like
		 * any hold, freed when it ends if its holder died); a re-entry by the same owner takes no second permit;
		 * waiters get permits first come, first served across instances; fencing tokens strictly increase per
		 * key across all permits. Only with {@link LockType#REENTRANT}. One key is one kind: every use of a key
		 * must give the same count (another count, or a read/write lock on it, is refused with an
		 * {@link IllegalStateException} naming the key and both counts).
		 * <pre class="code">
		 * LockDefinition.builder("export:" + tenant).permits(3).build();
		 * </pre>
		 * @param permits at least 1
		 * @return this builder
		 */
		public Builder permits(int permits) {
			this.permits = permits;
			return this;
		}

		/**
		 * Builds the definition.
		 * @return the definition
		 * @throws IllegalArgumentException as {@link LockDefinition#LockDefinition} does
		 */
		public LockDefinition build() {
			return new LockDefinition(this.key, this.type, this.lease, this.acquireTimeout, this.autoRenew,
					this.holdAtLeast, this.onLost, this.permits);
		}

	}

}
