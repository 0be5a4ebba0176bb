package io.github.distributedlock.core;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockLoss;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition asked of a {@link LockClient}: what to lock (key, type, permits, lease, auto-renew, minimum
 * hold, what a loss does to the work), how to wait (timeout, interruptible), and whose it is (the calling thread,
 * or an owner from {@link LockClient#newAsyncOwner()}). Every value is resolved: the template's defaults are
 * applied before the request reaches a store, so a store reads each field as it is. A new lock option is a new
 * field here (and a new {@link LockCapability} when not every store has it), not a new parameter of the SPI.
 * <pre class="code">
 * LockRequest request = LockRequest.builder("order:42")
 *         .lease(Duration.ofSeconds(30))
 *         .timeout(Duration.ofSeconds(5))
 *         .build();
 * LockHandle handle = client.acquire(request);
 * </pre>
 * Immutable and thread-safe; the builder is not.
 *
 * @param key the lock key, without any store prefix (the templates never send a blank one; the SPI takes any)
 * @param type the lock type
 * @param permits how many owners may hold the key at once: 1 for a lock, more (with
 * {@link LockType#REENTRANT}) for a semaphore, each holder with a lease of its own
 * @param lease how long the hold lives in the store without renewal: at least 1 ms, and at least
 * {@link LockDefinition#MIN_RENEWABLE_LEASE} with {@code autoRenew}
 * @param autoRenew whether the store renews the lease until the release; {@code false} makes it a hard limit
 * @param holdAtLeast the minimum hold: when the owner's last hold is released sooner than this after the lock
 * was acquired, the lock stays taken, by nobody, until then; {@link Duration#ZERO} for none
 * @param onLost what happens to the running work when the loss is learnt (the template reacts to it; a store
 * may read it)
 * @param timeout how long to wait: {@link Duration#ZERO} tries once, {@code null} waits without limit
 * @param interruptible whether an interrupt ends a blocking wait with {@link InterruptedException}; when
 * {@code false} the wait goes on and the thread's interrupt flag is set again on return (not read by
 * asynchronous acquisitions: cancelling their future gives up)
 * @param owner whose the hold is: {@link #CALLING_THREAD}, or an owner from {@link LockClient#newAsyncOwner()}
 * (a negative number) for {@link LockClient#acquireAsync(LockRequest)}
 * @param releasedByThread whether the caller releases the hold with {@link LockClient#release(String, LockType)}
 * on the owning thread, as the {@link java.util.concurrent.locks.Lock} views do, rather than by closing its
 * handle: the hold then belongs to its thread alone, and a store may release it when that thread ends without
 * releasing it (an orphan); the handle returned still releases the hold once if closed
 */
public record LockRequest(String key, LockType type, int permits, Duration lease, boolean autoRenew,
		Duration holdAtLeast, OnLockLoss onLost, @Nullable Duration timeout, boolean interruptible, long owner,
		boolean releasedByThread) {

	/** The owner of a request acquired by the calling thread ({@link LockClient#acquire(LockRequest)}). */
	public static final long CALLING_THREAD = 0;

	/**
	 * Checks the request; {@link #builder(String)} is the usual way to make one.
	 * @param key the lock key
	 * @param type the lock type
	 * @param permits the permit count
	 * @param lease the lease
	 * @param autoRenew whether the lease is renewed
	 * @param holdAtLeast the minimum hold
	 * @param onLost what a loss does to the work
	 * @param timeout how long to wait, {@code null} without limit
	 * @param interruptible whether an interrupt ends a blocking wait
	 * @param owner {@link #CALLING_THREAD} or an owner from {@link LockClient#newAsyncOwner()}
	 * @param releasedByThread whether the owning thread releases the hold
	 * @throws IllegalArgumentException if the lease is out of range
	 * ({@link LockDefinition#checkLease}), the permits are ({@link LockDefinition#checkPermits}), the timeout or
	 * minimum hold is negative, or the owner is neither {@link #CALLING_THREAD} nor negative, or is not a thread
	 * and yet released by its thread; the message names the key
	 */
	public LockRequest {
		LockRequestChecks.check(key, type, permits, lease, autoRenew, holdAtLeast, onLost, timeout, owner,
				releasedByThread);
	}

	/**
	 * Starts a request for a key: a reentrant lock of one permit, auto-renewed, without a minimum hold, trying
	 * once ({@link Duration#ZERO}), interruptible, for the calling thread; the lease must be set.
	 * @param key the lock key, without any store prefix (the templates never send a blank one; the SPI takes any)
	 * @return a builder
	 */
	public static Builder builder(String key) {
		return new Builder(key);
	}

	/**
	 * Starts a request from a definition: its key, type, permits, auto-renew, and each of its lease, acquire
	 * timeout, minimum hold and loss reaction that it sets (the template supplies its defaults for the others).
	 * @param definition what to lock
	 * @return a builder; {@link Builder#build()} fails if neither the definition nor the builder sets a lease
	 */
	public static Builder builder(LockDefinition definition) {
		Objects.requireNonNull(definition, "definition must not be null");
		Builder builder = new Builder(definition.key()).type(definition.type())
			.permits(definition.permits())
			.autoRenew(definition.autoRenew());
		if (definition.lease() != null) {
			builder.lease(definition.lease());
		}
		if (definition.acquireTimeout() != null) {
			builder.timeout(definition.acquireTimeout());
		}
		if (definition.holdAtLeast() != null) {
			builder.holdAtLeast(definition.holdAtLeast());
		}
		if (definition.onLost() != null) {
			builder.onLost(definition.onLost());
		}
		return builder;
	}

	/**
	 * Tells whether the owner is not a thread: such a request is acquired by {@link LockClient#acquireAsync}.
	 * @return {@code true} unless the owner is {@link #CALLING_THREAD}
	 */
	public boolean isAsync() {
		return this.owner != CALLING_THREAD;
	}

	/**
	 * Returns the owner of an asynchronous acquisition, for stores.
	 * @return the owner, a negative number from {@link LockClient#newAsyncOwner()}
	 * @throws IllegalArgumentException if the owner is the calling thread
	 */
	public long asyncOwner() {
		if (!isAsync()) {
			throw LockRequestChecks.notAsync(this.key);
		}
		return this.owner;
	}

	/**
	 * Checks that the calling thread is the owner, for stores' blocking acquisitions.
	 * @throws IllegalArgumentException if the owner is not the calling thread
	 */
	public void checkCallingThread() {
		if (isAsync()) {
			throw LockRequestChecks.notCallingThread(this.key, this.owner);
		}
	}

	/**
	 * Builds a {@link LockRequest}. Not thread-safe.
	 */
	public static final class Builder {

		private final String key;

		private LockType type = LockType.REENTRANT;

		private int permits = 1;

		private @Nullable Duration lease;

		private boolean autoRenew = true;

		private Duration holdAtLeast = Duration.ZERO;

		private OnLockLoss onLost = OnLockLoss.NONE;

		private @Nullable Duration timeout = Duration.ZERO;

		private boolean interruptible = true;

		private long owner = CALLING_THREAD;

		private boolean releasedByThread;

		private Builder(String key) {
			this.key = Objects.requireNonNull(key, "key must not be null");
		}

		/**
		 * Sets the lock type.
		 * @param type the lock type (default {@link LockType#REENTRANT})
		 * @return this builder
		 */
		public Builder type(LockType type) {
			this.type = Objects.requireNonNull(type, "type must not be null");
			return this;
		}

		/**
		 * Sets how many owners may hold the key at once.
		 * @param permits owners that may hold the key at once (default 1; more need REENTRANT)
		 * @return this builder
		 */
		public Builder permits(int permits) {
			this.permits = permits;
			return this;
		}

		/**
		 * Sets the lease.
		 * @param lease how long the hold lives without renewal; required
		 * @return this builder
		 */
		public Builder lease(Duration lease) {
			this.lease = Objects.requireNonNull(lease, "lease must not be null");
			return this;
		}

		/**
		 * Sets whether the lease is renewed until the release.
		 * @param autoRenew whether the lease is renewed until the release (default {@code true})
		 * @return this builder
		 */
		public Builder autoRenew(boolean autoRenew) {
			this.autoRenew = autoRenew;
			return this;
		}

		/**
		 * Sets the minimum hold.
		 * @param holdAtLeast the minimum hold, not negative (default none)
		 * @return this builder
		 */
		public Builder holdAtLeast(Duration holdAtLeast) {
			this.holdAtLeast = Objects.requireNonNull(holdAtLeast, "holdAtLeast must not be null");
			return this;
		}

		/**
		 * Sets what a loss does to the running work.
		 * @param onLost what a loss does to the work (default {@link OnLockLoss#NONE})
		 * @return this builder
		 */
		public Builder onLost(OnLockLoss onLost) {
			this.onLost = Objects.requireNonNull(onLost, "onLost must not be null");
			return this;
		}

		/**
		 * Sets how long the acquisition waits.
		 * @param timeout how long to wait, not negative: {@link Duration#ZERO} (the default) tries once,
		 * {@code null} waits without limit
		 * @return this builder
		 */
		public Builder timeout(@Nullable Duration timeout) {
			this.timeout = timeout;
			return this;
		}

		/**
		 * Sets whether an interrupt ends a blocking wait.
		 * @param interruptible whether an interrupt ends a blocking wait (default {@code true})
		 * @return this builder
		 */
		public Builder interruptible(boolean interruptible) {
			this.interruptible = interruptible;
			return this;
		}

		/**
		 * Sets the owner of the acquisition.
		 * @param owner {@link #CALLING_THREAD} (the default), or an owner from {@link LockClient#newAsyncOwner()}
		 * @return this builder
		 */
		public Builder owner(long owner) {
			this.owner = owner;
			return this;
		}

		/**
		 * Makes the hold one its thread releases ({@link LockRequest#releasedByThread()}).
		 * @return this builder
		 */
		public Builder releasedByThread() {
			this.releasedByThread = true;
			return this;
		}

		/**
		 * Builds the request.
		 * @return the request
		 * @throws IllegalStateException if no lease was set
		 * @throws IllegalArgumentException if a value is out of range (see {@link LockRequest#LockRequest})
		 */
		public LockRequest build() {
			Duration lease = this.lease;
			if (lease == null) {
				throw new IllegalStateException("The lease of lock '" + this.key + "' is not set");
			}
			return new LockRequest(this.key, this.type, this.permits, lease, this.autoRenew, this.holdAtLeast,
					this.onLost, this.timeout, this.interruptible, this.owner, this.releasedByThread);
		}

	}

}
