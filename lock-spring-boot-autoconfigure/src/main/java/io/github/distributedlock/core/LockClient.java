package io.github.distributedlock.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The store behind {@link DistributedLockTemplate} (the SPI): acquires and releases locks, renews leases and wakes
 * waiters. Each acquisition is one {@link LockRequest}; what the store supports beyond an exclusive lock is
 * declared by {@link #capabilities()}, and the templates refuse a request that needs more before it reaches the
 * store. The Redis implementation is {@code io.github.distributedlock.redis.RedisLockClient}, the in-JVM one
 * {@code io.github.distributedlock.local.LocalLockClient}; {@code docs/custom-store.md} says how to write one.
 * A decorator extends {@link ForwardingLockClient} and overrides what it adds to.
 * <p>
 * The owner of a lock is this client (identified by {@link #getClientId()}) together with the calling thread,
 * or an owner from {@link #newAsyncOwner()}. Implementations are thread-safe.
 */
public interface LockClient extends AutoCloseable {

	/**
	 * Returns the random id of this client, the first part of every owner id it writes.
	 * @return the client id, a UUID string
	 */
	String getClientId();

	/**
	 * Declares what this store supports, and its name for messages; the same value for the client's life.
	 * @return the capabilities
	 */
	LockCapabilities capabilities();

	/**
	 * Acquires a lock (or a permit of a semaphore) for the calling thread, waiting up to the request's timeout.
	 * Reentrant: an owner that holds the lock (of the same type) acquires it again at once, and the handle it
	 * gets has the outer hold's fencing token; a re-entry takes no second permit.
	 * @param request what to acquire, for {@link LockRequest#CALLING_THREAD}; needs nothing this store lacks
	 * @return the handle of this hold (its {@link LockHandle#close()} releases it, from any thread), or
	 * {@code null} if the timeout passed first
	 * @throws InterruptedException if the request is interruptible and the thread was interrupted while waiting
	 * @throws IllegalArgumentException if the request's owner is not the calling thread
	 * @throws IllegalMonitorStateException if the request can never succeed for this owner, such as asking for
	 * the write side of a read/write lock while holding its read side (an upgrade)
	 * @throws IllegalStateException if the key is used as another kind of lock, or with another permit count
	 * (the message names the key)
	 * @throws DistributedLockException if the store cannot be reached; the lock is then not held
	 */
	@Nullable LockHandle acquire(LockRequest request) throws InterruptedException;

	/**
	 * Returns a new owner for {@link #acquireAsync}: an owner of locks that is not a thread, such as one call of
	 * an asynchronous method or one reactive subscription chain. Its holds are released through their handles,
	 * from any thread. Only for a store with {@link LockCapability#ASYNC}.
	 * @return the owner, a negative number (thread owners are thread ids), unique within this client
	 * @throws UnsupportedOperationException if this store has no asynchronous acquisitions (the default)
	 */
	default long newAsyncOwner() {
		throw new UnsupportedOperationException("The lock store '" + capabilities().store() + "' cannot acquire locks asynchronously");
	}

	/**
	 * Acquires a lock (or a permit) for an owner that is not a thread, without blocking the calling thread: the
	 * returned future completes when the lock is acquired, on the thread that learnt it (with Redis on Lettuce,
	 * one of Lettuce's I/O threads: code that follows it must not block). Reentrant per owner, as
	 * {@link #acquire} is. Only for a store with {@link LockCapability#ASYNC}.
	 * <p>
	 * Cancelling the returned future gives up: the owner leaves the queues it waits in, and a lock acquired at
	 * the same moment is released.
	 * @param request what to acquire, for an owner from {@link #newAsyncOwner()}
	 * @return completes with the handle of this hold, or with {@code null} if the timeout passed first; fails as
	 * {@link #acquire} throws (an {@link IllegalArgumentException} for an owner that is a thread, a
	 * {@link LockLostException} if a re-entry finds the lock lost); the default fails with an
	 * {@link UnsupportedOperationException}; never throws
	 */
	default CompletableFuture<@Nullable LockHandle> acquireAsync(LockRequest request) {
		return CompletableFuture.failedFuture(new UnsupportedOperationException(
				"The lock store '" + capabilities().store() + "' cannot acquire locks asynchronously"));
	}

	/**
	 * Releases one hold of a lock by the calling thread, and frees the lock when no hold is left; what
	 * {@link java.util.concurrent.locks.Lock#unlock()} does, for holds acquired with
	 * {@link LockRequest#releasedByThread()}. A {@link LockHandle} is released by its own
	 * {@link LockHandle#close()} instead.
	 * @param key the lock key, without any store prefix
	 * @param type the lock type it was acquired with
	 * @throws IllegalMonitorStateException if the calling thread does not hold the lock; nothing changes
	 * @throws LockLostException if the lock was lost before this release; another owner's lock is untouched
	 * @throws DistributedLockException if the store cannot be reached; the lock then ends with its lease
	 */
	void release(String key, LockType type);

	/**
	 * Tells whether the calling thread holds the lock, as this client knows it (no round trip to the store).
	 * @param key the lock key
	 * @param type the lock type
	 * @return {@code true} if acquired and not yet released by this thread, even if since lost
	 */
	boolean isHeldByCurrentThread(String key, LockType type);

	/**
	 * Returns the locks that owners of this client hold now, as this client knows them (no round trip): for
	 * diagnostics, such as the Actuator endpoint.
	 * @return a snapshot, one entry per owner and lock; empty by default, for clients that do not tell
	 */
	default List<HeldLock> heldLocks() {
		return List.of();
	}

	/**
	 * Stops renewal and notifications and releases every lock this client still holds. Idempotent.
	 * Later releases of those locks throw {@link LockLostException}.
	 */
	@Override
	void close();

}
