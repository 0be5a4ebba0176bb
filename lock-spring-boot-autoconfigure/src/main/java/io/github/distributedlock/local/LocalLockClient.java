package io.github.distributedlock.local;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockCapabilities;
import io.github.distributedlock.core.LockCapability;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.core.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockClient} whose locks live in this JVM, in a {@link LocalLockStore}: for unit tests of code that
 * uses {@code @DistributedLock} or the {@code DistributedLockTemplate}, and for single-instance development,
 * without Redis ({@code distributed-lock.store=local}). <b>It excludes nothing across JVMs</b>: two
 * processes of an application on it both hold every lock.
 * <p>
 * Inside one JVM its locks behave as the Redis ones do:
 * <ul>
 * <li>the owner is this client and the calling thread ({@code <client id>:<thread id>}); only the owner
 * releases ({@link IllegalMonitorStateException} otherwise), and the lock is reentrant;</li>
 * <li>read/write locks: shared readers, one writer; the writer may take the read lock (downgrade), a reader
 * asking for the write lock is refused at once ({@link IllegalMonitorStateException}); a key held (or waited
 * for) as a reentrant lock is refused to read/write locks, and the other way round, at once
 * ({@link IllegalStateException}: one key cannot be both); a waiting writer makes
 * new readers wait (writers are not starved), and the readers waiting when a writer leaves enter before the
 * next writer; exclusive waiters are served first come, first served;</li>
 * <li>leases: an auto-renewed lock never expires while held (nothing needs renewing in one JVM); a lease
 * without auto-renew is a hard limit, after which others take the lock, the loss is told (a timer watches the
 * lease's end), and the late release throws {@link LockLostException} without touching their hold;</li>
 * <li>semaphores ({@code permits > 1}): up to that many owners hold the key at once, each with its own lease
 * and fencing token; a re-entry takes no second permit; waiters get permits first come, first served; a key
 * used with another permit count (or as another kind of lock) while in use is refused at once
 * ({@link IllegalStateException} naming the key and both counts);</li>
 * <li>acquire timeouts ({@link Duration#ZERO} tries once, {@code null} waits without limit), interruptible
 * waits, fencing tokens (see {@link LocalLockStore}), and the minimum hold.</li>
 * </ul>
 * Waiters sleep on a condition until a release or the end of a holder's hard lease; there is no polling.
 * Acquisitions, releases and losses are told to the {@linkplain #setLockObserver lock observer} as the Redis
 * store tells them, so meters and {@code LockLostEvent}s work in tests on this store too.
 * <p>
 * Thread-safe. {@link #close()} releases what it still holds.
 */
public final class LocalLockClient implements LockClient {

	private static final LockCapabilities CAPABILITIES = LockCapabilities.of("local", LockCapability.READ_WRITE,
			LockCapability.SEMAPHORES, LockCapability.ASYNC, LockCapability.MINIMUM_HOLD);

	/** Longest duration used as is: longer ones are cut to it, so that deadlines cannot overflow. */
	private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE / 4);

	private final String clientId = UUID.randomUUID().toString();

	private final LocalLockStore store;

	private final String keyPrefix;

	private final ConcurrentHashMap<HoldId, LocalHold> holds = new ConcurrentHashMap<>();

	private final AtomicBoolean closed = new AtomicBoolean();

	/** Numbers the owners that are not threads. */
	private final AtomicLong asyncOwners = new AtomicLong();

	private final LocalHoldEvents events = new LocalHoldEvents();

	/**
	 * Creates a client on a store of its own, which no other client shares.
	 */
	public LocalLockClient() {
		this(new LocalLockStore(), "");
	}

	/**
	 * Creates a client on a store that other clients may share, as instances share one Redis.
	 * @param store where the locks live
	 * @param keyPrefix prefix of every key in the store, such as {@code "lock:"}; clients with different
	 * prefixes never meet; may be empty
	 */
	public LocalLockClient(LocalLockStore store, String keyPrefix) {
		this.store = Objects.requireNonNull(store, "store must not be null");
		this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
	}

	@Override
	public String getClientId() {
		return this.clientId;
	}

	/**
	 * Sets what is told when an owner of this client starts holding a lock, releases it or learns it lost it, as
	 * the Redis store tells it (metrics, {@code LockLostEvent}s): see {@link LockObserver} for the threads. Nothing
	 * is renewed in one JVM, so no renewal or release ever fails here. May be called at any time; holds acquired
	 * before are told to the new observer from then on.
	 * @param observer the observer, {@link LockObserver#NONE} for none
	 * @throws NullPointerException if {@code observer} is {@code null}
	 */
	public void setLockObserver(LockObserver observer) {
		this.events.setObserver(observer);
	}

	/**
	 * Returns the key of a lock in the store.
	 * @param key the lock key
	 * @return the key prefix followed by {@code key}
	 */
	public String storeKey(String key) {
		return this.keyPrefix + key;
	}

	/**
	 * {@inheritDoc} Everything: read/write locks, semaphores, asynchronous acquisitions, minimum holds.
	 */
	@Override
	public LockCapabilities capabilities() {
		return CAPABILITIES;
	}

	/**
	 * {@inheritDoc} With more than one permit the key is a semaphore of this store: up to that many owners hold
	 * it at once, each with its own lease, and waiters get permits first come, first served.
	 */
	@Override
	public @Nullable LockHandle acquire(LockRequest request) throws InterruptedException {
		request.checkCallingThread();
		return acquire(request, request.timeout(), request.interruptible(), Thread.currentThread().getId());
	}

	@Override
	public long newAsyncOwner() {
		return -this.asyncOwners.incrementAndGet();
	}

	/**
	 * {@inheritDoc} Tries at once on the calling thread; if the lock (or every permit) is taken, waits on a
	 * thread of its own (this store is for tests and single-instance development: a waiting owner costs a thread
	 * here).
	 */
	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(LockRequest request) {
		return AsyncWaits.acquire((wait, interruptible) -> acquire(request, wait, interruptible, request.asyncOwner()),
				request.timeout());
	}

	private @Nullable LockHandle acquire(LockRequest request, @Nullable Duration timeout, boolean interruptible,
			long owner) throws InterruptedException {
		String key = request.key();
		LockType type = request.type();
		int permits = request.permits();
		if (this.closed.get()) {
			throw new DistributedLockException("This lock client is closed (the application is shutting down)");
		}
		HoldId id = new HoldId(key, type, owner);
		LocalHold held = this.holds.get(id);
		if (held != null && held.permits != permits) {
			// the owner's own hold says what the key is, as the key's state would to another owner
			throw KeyKinds.mixedUse(key, this.keyPrefix + key, KeyKinds.of(held.permits, held.type), permits);
		}
		if (held != null && held.lock.reenter(held, nanos(request.lease()), nanos(request.holdAtLeast()))) {
			return new LocalLockHandle(this, held);
		}
		if (type == LockType.WRITE && this.holds.containsKey(new HoldId(key, LockType.READ, owner))) {
			throw new IllegalMonitorStateException("Cannot acquire the write lock '" + key + "' while holding its "
					+ "read lock: upgrades are not supported (two readers upgrading at once would wait for each other "
					+ "forever); release the read lock first");
		}
		String ownerId = this.clientId + ":" + ((owner >= 0) ? Long.toString(owner) : "async-" + -owner);
		KeyRequest acquisition = new KeyRequest(key, this.keyPrefix + key, type, permits, ownerId, owner,
				request.lease().toMillis(), request.autoRenew(), nanos(request.holdAtLeast()), this.events);
		LocalHold hold = this.store.acquire(acquisition, timeout, interruptible);
		if (hold == null) {
			return null;
		}
		this.holds.put(id, hold);
		this.events.acquired(hold);
		return new LocalLockHandle(this, hold);
	}

	@Override
	public void release(String key, LockType type) {
		LocalHold hold = this.holds.get(new HoldId(key, type, Thread.currentThread().getId()));
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + key + "' (" + type + ") is not held by the current thread, so it cannot release it");
		}
		release(hold);
	}

	/**
	 * Releases one hold, on whichever thread.
	 * @throws IllegalMonitorStateException if all its holds were released already
	 * @throws LockLostException if the lock was lost before this release
	 */
	void release(LocalHold hold) {
		try {
			hold.lock.release(hold);
		}
		finally {
			// the remove succeeds once: a second release of a released hold tells nothing
			if (hold.isReleased() && this.holds.remove(new HoldId(hold.key, hold.type, hold.ownerId), hold)) {
				this.events.released(hold);
			}
		}
	}

	@Override
	public boolean isHeldByCurrentThread(String key, LockType type) {
		return this.holds.containsKey(new HoldId(key, type, Thread.currentThread().getId()));
	}

	/**
	 * {@inheritDoc} Each entry carries the key's permit count (more than 1 for a semaphore).
	 */
	@Override
	public List<HeldLock> heldLocks() {
		List<HeldLock> held = new ArrayList<>();
		for (LocalHold hold : this.holds.values()) {
			held.add(hold.snapshot());
		}
		return held;
	}

	/**
	 * Releases every lock this client still holds; their later releases throw {@link LockLostException}, and
	 * acquisitions a {@link DistributedLockException}. Idempotent.
	 */
	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			for (LocalHold hold : this.holds.values()) {
				hold.lock.discard(hold, "its client was closed (application shutdown) and released it");
			}
		}
	}

	/** A duration in nanoseconds, capped so that adding it to {@link System#nanoTime()} cannot overflow. */
	static long nanos(Duration duration) {
		return (duration.compareTo(LONGEST) >= 0) ? LONGEST.toNanos() : duration.toNanos();
	}

	/**
	 * Identity of one owner's hold on one lock: the lock key, its type and the owner (a thread's id, or a
	 * negative number for an owner that is not a thread).
	 */
	private record HoldId(String key, LockType type, long owner) {
	}

}
