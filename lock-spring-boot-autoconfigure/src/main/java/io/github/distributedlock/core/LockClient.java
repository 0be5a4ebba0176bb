package io.github.distributedlock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The store behind {@link DistributedLockTemplate}: acquires and releases locks on behalf of the calling
 * thread, renews leases and wakes waiters. The Redis implementation is
 * {@code io.github.distributedlock.redis.RedisLockClient}; other stores may implement it.
 * <p>
 * The owner of a lock is this client (identified by {@link #getClientId()}) together with the calling
 * thread. Implementations are thread-safe.
 */
public interface LockClient extends AutoCloseable {

	/**
	 * Returns the random id of this client, the first part of every owner id it writes.
	 * @return the client id, a UUID string
	 */
	String getClientId();

	/**
	 * Acquires a lock for the calling thread, waiting up to {@code timeout}. Reentrant: an owner that holds
	 * the lock (of the same type) acquires it again at once, and the handle it gets has the outer hold's
	 * fencing token.
	 * @param key the lock key, without any store prefix
	 * @param type the lock type
	 * @param lease how long the lock lives without renewal; at least 1 ms, and at least
	 * {@link LockDefinition#MIN_RENEWABLE_LEASE} with {@code autoRenew}
	 * @param autoRenew whether to renew the lease until the release
	 * @param holdAtLeast the minimum hold: when the owner's last hold is released sooner than this after the
	 * lock was acquired, the lock stays taken, by nobody, until then; {@link Duration#ZERO} for none
	 * @param timeout how long to wait; {@link Duration#ZERO} tries once; {@code null} waits without limit
	 * @param interruptible whether an interrupt ends the wait with {@link InterruptedException}; when
	 * {@code false} the wait goes on and the thread's interrupt flag is set again on return
	 * @return the handle of this hold (its {@link LockHandle#close()} releases it, from any thread), or
	 * {@code null} if the timeout passed first
	 * @throws InterruptedException if {@code interruptible} and the thread was interrupted while waiting
	 * @throws IllegalArgumentException if the lease is out of range ({@link LockDefinition#checkLease})
	 * @throws IllegalMonitorStateException if the request can never succeed for this owner, such as asking for
	 * the write side of a read/write lock while holding its read side (an upgrade)
	 * @throws DistributedLockException if the store cannot be reached; the lock is then not held
	 */
	@Nullable LockHandle acquire(String key, LockType type, Duration lease, boolean autoRenew, Duration holdAtLeast,
			@Nullable Duration timeout, boolean interruptible) throws InterruptedException;

	/**
	 * Acquires a lock or a permit of a semaphore for the calling thread, waiting up to {@code timeout}: as
	 * {@link #acquire(String, LockType, Duration, boolean, Duration, Duration, boolean)}, with a permit count. With
	 * {@code permits > 1} the key is a semaphore that up to that many owners hold at once, each with a lease of
	 * its own; a re-entry by an owner that holds a permit takes no second one. The default implementation
	 * supports one permit only.
	 * @param key the lock key, without any store prefix
	 * @param type the lock type; {@link LockType#REENTRANT} when {@code permits > 1}
	 * @param permits how many owners may hold the key at once, at least 1
	 * @param lease how long the hold lives without renewal
	 * @param autoRenew whether to renew the lease until the release
	 * @param holdAtLeast the minimum hold; {@link Duration#ZERO} for none
	 * @param timeout how long to wait; {@link Duration#ZERO} tries once; {@code null} waits without limit
	 * @param interruptible whether an interrupt ends the wait with {@link InterruptedException}
	 * @return the handle of this hold, or {@code null} if the timeout passed first
	 * @throws InterruptedException if {@code interruptible} and the thread was interrupted while waiting
	 * @throws IllegalArgumentException if the lease or the permit count is out of range
	 * @throws IllegalStateException if the key is used with another permit count, or as another kind of lock
	 * (the message names the key and both counts)
	 * @throws UnsupportedOperationException if {@code permits > 1} and this store has no semaphores
	 * @throws DistributedLockException if the store cannot be reached; the lock is then not held
	 */
	default @Nullable LockHandle acquire(String key, LockType type, int permits, Duration lease, boolean autoRenew,
			Duration holdAtLeast, @Nullable Duration timeout, boolean interruptible) throws InterruptedException {
		LockDefinition.checkPermits(permits, type, "lock '" + key + "'");
		if (permits == 1) {
			return acquire(key, type, lease, autoRenew, holdAtLeast, timeout, interruptible);
		}
		throw new UnsupportedOperationException(getClass().getName() + " has no semaphores (permits > 1)");
	}

	/**
	 * Acquires a lock for the calling thread without a minimum hold, as
	 * {@link #acquire(String, LockType, Duration, boolean, Duration, Duration, boolean)} does, for callers that
	 * release it by thread with {@link #release(String, LockType)}, such as {@link java.util.concurrent.locks.Lock}
	 * views.
	 * @param key the lock key, without any store prefix
	 * @param type the lock type
	 * @param lease how long the lock lives without renewal
	 * @param autoRenew whether to renew the lease until the release
	 * @param timeout how long to wait; {@link Duration#ZERO} tries once; {@code null} waits without limit
	 * @param interruptible whether an interrupt ends the wait with {@link InterruptedException}
	 * @return {@code true} if acquired, {@code false} if the timeout passed first
	 * @throws InterruptedException if {@code interruptible} and the thread was interrupted while waiting
	 * @throws IllegalArgumentException if the lease is out of range
	 * @throws IllegalMonitorStateException if the request can never succeed for this owner (an upgrade)
	 * @throws DistributedLockException if the store cannot be reached; the lock is then not held
	 */
	default boolean acquire(String key, LockType type, Duration lease, boolean autoRenew, @Nullable Duration timeout,
			boolean interruptible) throws InterruptedException {
		return acquire(key, type, lease, autoRenew, Duration.ZERO, timeout, interruptible) != null;
	}

	/**
	 * Returns a new owner for {@link #acquireAsync}: an owner of locks that is not a thread, such as one call of
	 * an asynchronous method or one reactive subscription chain. Its holds are released through their handles,
	 * from any thread.
	 * @return the owner, a negative number (thread owners are thread ids), unique within this client
	 * @throws UnsupportedOperationException if this client cannot acquire asynchronously (the default)
	 */
	default long newAsyncOwner() {
		throw new UnsupportedOperationException(getClass().getName() + " cannot acquire locks asynchronously");
	}

	/**
	 * Acquires a lock for an owner that is not a thread, without blocking the calling thread: the returned
	 * future completes when the lock is acquired, on the thread that learnt it (with Redis on Lettuce, one of
	 * Lettuce's I/O threads: code that follows it must not block). Waiting costs no thread where the store
	 * allows it (the Redis store on Lettuce). Reentrant per owner: an owner that holds the lock (of the same
	 * type) gets a handle with the outer hold's fencing token.
	 * <p>
	 * Cancelling the returned future gives up: the owner leaves the queues it waits in, in this client and in
	 * Redis, and a lock acquired at the same moment is released.
	 * @param key the lock key, without any store prefix
	 * @param type the lock type
	 * @param lease how long the lock lives without renewal; as for
	 * {@link #acquire(String, LockType, Duration, boolean, Duration, Duration, boolean)}
	 * @param autoRenew whether to renew the lease until the release
	 * @param holdAtLeast the minimum hold; {@link Duration#ZERO} for none
	 * @param timeout how long to wait; {@link Duration#ZERO} tries once; {@code null} waits without limit
	 * @param owner an owner from {@link #newAsyncOwner()}
	 * @return completes with the handle of this hold, or with {@code null} if the timeout passed first; fails with
	 * an {@link IllegalArgumentException} for a lease out of range, an {@link IllegalMonitorStateException} for an
	 * upgrade, a {@link LockLostException} if a re-entry finds the lock lost, a {@link DistributedLockException}
	 * if the store cannot be reached; never throws
	 */
	default CompletableFuture<@Nullable LockHandle> acquireAsync(String key, LockType type, Duration lease,
			boolean autoRenew, Duration holdAtLeast, @Nullable Duration timeout, long owner) {
		return CompletableFuture.failedFuture(new UnsupportedOperationException(
				getClass().getName() + " cannot acquire locks asynchronously"));
	}

	/**
	 * Acquires a lock or a permit of a semaphore for an owner that is not a thread, without blocking the calling
	 * thread: as {@link #acquireAsync(String, LockType, Duration, boolean, Duration, Duration, long)}, with a
	 * permit count (see {@link #acquire(String, LockType, int, Duration, boolean, Duration, Duration, boolean)}).
	 * The default implementation supports one permit only.
	 * @param key the lock key, without any store prefix
	 * @param type the lock type; {@link LockType#REENTRANT} when {@code permits > 1}
	 * @param permits how many owners may hold the key at once, at least 1
	 * @param lease how long the hold lives without renewal
	 * @param autoRenew whether to renew the lease until the release
	 * @param holdAtLeast the minimum hold; {@link Duration#ZERO} for none
	 * @param timeout how long to wait; {@link Duration#ZERO} tries once; {@code null} waits without limit
	 * @param owner an owner from {@link #newAsyncOwner()}
	 * @return completes with the handle, or with {@code null} if the timeout passed first; fails as the
	 * other {@code acquireAsync} does, with an {@link IllegalStateException} if the key is used with another
	 * permit count, or an {@link UnsupportedOperationException} if this store has no semaphores; never throws
	 */
	default CompletableFuture<@Nullable LockHandle> acquireAsync(String key, LockType type, int permits,
			Duration lease, boolean autoRenew, Duration holdAtLeast, @Nullable Duration timeout, long owner) {
		try {
			LockDefinition.checkPermits(permits, type, "lock '" + key + "'");
		}
		catch (IllegalArgumentException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (permits == 1) {
			return acquireAsync(key, type, lease, autoRenew, holdAtLeast, timeout, owner);
		}
		return CompletableFuture.failedFuture(new UnsupportedOperationException(
				getClass().getName() + " has no semaphores (permits > 1)"));
	}

	/**
	 * Releases one hold of a lock by the calling thread, and frees the lock when no hold is left; what
	 * {@link java.util.concurrent.locks.Lock#unlock()} does. A {@link LockHandle} is released by its own
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
