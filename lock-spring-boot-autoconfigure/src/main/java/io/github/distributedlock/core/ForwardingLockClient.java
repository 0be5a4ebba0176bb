package io.github.distributedlock.core;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockClient} that forwards every method to another one: the base of decorators (such as those a
 * {@link LockClientDecorator} returns), which override only what they add to, usually
 * {@link #acquire(LockRequest)} and {@link #acquireAsync(LockRequest)}. Thread-safe if the delegate is.
 */
public abstract class ForwardingLockClient implements LockClient {

	private final LockClient delegate;

	/**
	 * Creates a client that forwards to {@code delegate}.
	 * @param delegate the client to forward to
	 */
	protected ForwardingLockClient(LockClient delegate) {
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
	}

	/**
	 * Returns the client this one forwards to.
	 * @return the delegate
	 */
	public LockClient getDelegate() {
		return this.delegate;
	}

	@Override
	public String getClientId() {
		return this.delegate.getClientId();
	}

	@Override
	public LockCapabilities capabilities() {
		return this.delegate.capabilities();
	}

	@Override
	public @Nullable LockHandle acquire(LockRequest request) throws InterruptedException {
		return this.delegate.acquire(request);
	}

	@Override
	public long newAsyncOwner() {
		return this.delegate.newAsyncOwner();
	}

	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(LockRequest request) {
		return this.delegate.acquireAsync(request);
	}

	@Override
	public void release(String key, LockType type) {
		this.delegate.release(key, type);
	}

	@Override
	public boolean isHeldByCurrentThread(String key, LockType type) {
		return this.delegate.isHeldByCurrentThread(key, type);
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.delegate.heldLocks();
	}

	@Override
	public void close() {
		this.delegate.close();
	}

}
