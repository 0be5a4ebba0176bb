package io.github.distributedlock.core;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * Acquires single locks on a {@link LockClient} for the templates, with their {@link LockDefaults} standing in
 * for what a {@link LockDefinition} leaves out: for the calling thread (waiting) or for an owner that is not a
 * thread (asynchronously), each within what is left of an acquire timeout that the locks of one call share.
 * Immutable and thread-safe.
 *
 * @param client the store of the locks
 * @param defaults the template's defaults
 */
record LockAcquirer(LockClient client, LockDefaults defaults) {

	/**
	 * Acquires the lock for the calling thread within the definition's whole acquire timeout.
	 * @return the handle, never {@code null}
	 * @throws LockAcquisitionException if not acquired in time, or interrupted while waiting (the interrupt flag
	 * is set again)
	 */
	LockHandle acquire(LockDefinition definition) {
		Objects.requireNonNull(definition, "definition must not be null");
		long start = System.nanoTime();
		LockHandle handle = acquire(definition, start);
		if (handle == null) {
			throw new LockAcquisitionException(definition.key(), LockedRun.since(start));
		}
		return handle;
	}

	/**
	 * Like {@link #acquire(LockDefinition)}, but returns {@code null} when not acquired in time.
	 * @throws LockAcquisitionException if interrupted while waiting (the interrupt flag is set again)
	 */
	@Nullable LockHandle tryAcquire(LockDefinition definition) {
		Objects.requireNonNull(definition, "definition must not be null");
		return acquire(definition, System.nanoTime());
	}

	/**
	 * Acquires the lock for the calling thread within what is left of an acquire timeout that started at
	 * {@code start} (a {@link System#nanoTime()}).
	 * @return the handle, or {@code null} if not acquired in time
	 * @throws LockAcquisitionException if interrupted while waiting (the interrupt flag is set again)
	 */
	@Nullable LockHandle acquire(LockDefinition definition, long start) {
		LockRequest request = this.defaults.requestOf(definition, start).build();
		this.client.capabilities().check(request);
		try {
			return this.client.acquire(request);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockAcquisitionException(definition.key(), LockedRun.since(start), ex);
		}
	}

	/**
	 * Returns a new owner for {@link #acquireAsync}, one that is not a thread.
	 * @throws UnsupportedOperationException if the store has no asynchronous acquisitions (naming the store)
	 */
	long newAsyncOwner() {
		LockCapabilities capabilities = this.client.capabilities();
		if (!capabilities.supports(LockCapability.ASYNC)) {
			throw new UnsupportedOperationException("The lock store '" + capabilities.store()
					+ "' does not support " + LockCapability.ASYNC.description());
		}
		return this.client.newAsyncOwner();
	}

	/**
	 * Starts acquiring the lock for {@code owner}, an owner from {@link #newAsyncOwner()}, within what is left of
	 * an acquire timeout that started at {@code start}.
	 * @return completes with the handle, or with {@code null} if not acquired in time; fails if the store lacks
	 * what the definition needs
	 */
	CompletableFuture<@Nullable LockHandle> acquireAsync(LockDefinition definition, long start, long owner) {
		LockRequest request;
		try {
			request = this.defaults.requestOf(definition, start).owner(owner).build();
			this.client.capabilities().check(request);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return this.client.acquireAsync(request);
	}

	/** Whether the work under the definition's lock is stopped when the lock is lost (with the default). */
	boolean interruptsOnLoss(LockDefinition definition) {
		return this.defaults.interruptsOnLoss(definition);
	}

}
