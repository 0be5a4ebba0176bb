package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.redis.Hold.HoldId;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A {@link LockClient} on Redis: the entry point of this package, whose description says how the locks work
 * (data, read/write, renewal, waiting, the non-blocking core, owners, reentrancy, replica sync, threads).
 * {@link #acquireAsync} and {@link LockHandle#closeAsync()} use the non-blocking core as it is; the blocking
 * methods ({@link #acquire}, {@link #release}) wait for it. Owners are threads ({@code <client id>:<thread id>})
 * or, from {@link #newAsyncOwner()}, asynchronous calls and reactive chains ({@code <client id>:async-<n>}).
 * <p>
 * Redis commands fail within the connection factory's command timeout ({@code spring.data.redis.timeout});
 * such failures surface as {@link io.github.distributedlock.core.DistributedLockException}.
 * <p>
 * Shutdown: {@link #stop()} (the application context's lifecycle) waits up to the shutdown timeout for
 * running holders to release their locks, renewing them meanwhile, then {@link #close() closes}, releasing
 * what is left with a warning; those holders' releases then throw {@link LockLostException}. {@link #start()}
 * after that (a restarted application context) opens the client again, as a new instance with a new client id.
 * <p>
 * Thread-safe.
 */
public final class RedisLockClient implements LockClient, SmartLifecycle {

	/**
	 * Lifecycle phase: stopped after a web server's graceful shutdown ({@code Integer.MAX_VALUE - 1024}) and
	 * after task executors stopped taking tasks ({@code Integer.MAX_VALUE}), and before the Redis connection
	 * factory ({@code 0}), so held locks are renewed, and released, while Redis is still reachable.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 2048;

	/** Default of {@code distributed-lock.sync-timeout}: how long an acquisition waits for replicas. */
	public static final Duration DEFAULT_SYNC_TIMEOUT = Duration.ofMillis(100);

	/** Default of {@link #setShutdownTimeout(Duration)}. */
	public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

	private final RedisConnectionFactory connectionFactory;

	private final String keyPrefix;

	private final String channel;

	private final int syncReplicas;

	private final Duration syncTimeout;

	/** The parts of the current run: made anew by {@link #start()} after a {@link #stop()} (a restart). */
	private volatile ClientParts parts;

	private volatile LockObserver observer = LockObserver.NONE;

	/** Numbers the owners that are not threads. */
	private final AtomicLong asyncOwners = new AtomicLong();

	private volatile Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;

	/**
	 * Creates a client without replica sync and subscribes to release notifications. Redis being unreachable
	 * does not fail the construction: acquisitions fail until it is back, and the subscription is made then.
	 * @param connectionFactory the Redis connections; the client opens one more for its subscription
	 * @param keyPrefix prefix of every Redis key it writes, such as {@code "lock:"}; may be empty
	 */
	public RedisLockClient(RedisConnectionFactory connectionFactory, String keyPrefix) {
		this(connectionFactory, keyPrefix, 0, DEFAULT_SYNC_TIMEOUT);
	}

	/**
	 * Creates a client, with replica sync if {@code syncReplicas > 0}, and subscribes to release notifications.
	 * With replica sync, every acquisition (a grant or a hand-over included; not a re-entry) waits with Redis
	 * {@code WAIT} until at least {@code syncReplicas} replicas have the lock, for up to {@code syncTimeout}; if
	 * fewer acknowledge it in time, the acquisition is undone (released as by the holder) and tried again within
	 * the acquire timeout. Redis being unreachable does not fail the construction.
	 * @param connectionFactory the Redis connections; the client opens one more for its subscription, and with
	 * replica sync it keeps a few more for {@code WAIT}, which blocks its connection (it needs Lettuce then)
	 * @param keyPrefix prefix of every Redis key it writes, such as {@code "lock:"}; may be empty
	 * @param syncReplicas how many replicas must acknowledge each acquisition; 0 turns replica sync off, which
	 * costs nothing
	 * @param syncTimeout how long an acquisition waits for them, at least 1 ms; ignored when off
	 * @throws IllegalArgumentException if {@code syncReplicas} is negative, {@code syncTimeout} is under 1 ms,
	 * or replica sync is on and the factory is not a {@code LettuceConnectionFactory}
	 */
	public RedisLockClient(RedisConnectionFactory connectionFactory, String keyPrefix, int syncReplicas,
			Duration syncTimeout) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		ReplicaSync replicaSync = ReplicaSync.of(connectionFactory, syncReplicas, syncTimeout);
		this.syncReplicas = syncReplicas;
		this.syncTimeout = syncTimeout;
		this.channel = channel(keyPrefix);
		this.parts = newParts(replicaSync);
	}

	/** Makes the parts of a run, under a new client id: nothing of an earlier run can be taken for its own. */
	private ClientParts newParts(@Nullable ReplicaSync replicaSync) {
		ClientParts parts = new ClientParts(this.connectionFactory, this.keyPrefix, UUID.randomUUID().toString(),
				this.channel, replicaSync);
		parts.events.setObserver(this.observer);
		return parts;
	}

	/**
	 * Sets how long {@link #stop()} waits for running holders to release their locks before it releases what
	 * is left (default {@link #DEFAULT_SHUTDOWN_TIMEOUT}).
	 * @param shutdownTimeout the grace period; zero releases at once; not negative
	 * @throws IllegalArgumentException if negative
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		Objects.requireNonNull(shutdownTimeout, "shutdownTimeout must not be null");
		if (shutdownTimeout.isNegative()) {
			throw new IllegalArgumentException("The shutdown timeout must not be negative, was " + shutdownTimeout);
		}
		this.shutdownTimeout = shutdownTimeout;
	}

	/**
	 * Sets what is told when a lock is acquired, released, lost or not renewed (see {@link LockObserver});
	 * {@link LockObserver#NONE} by default. Acquisitions and releases are also logged at DEBUG, losses at WARN.
	 * @param observer the observer; {@link LockObserver#of} combines several
	 */
	public synchronized void setLockObserver(LockObserver observer) {
		this.observer = Objects.requireNonNull(observer, "observer must not be null");
		this.parts.events.setObserver(observer);
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.parts.heldLocks();
	}

	/**
	 * {@inheritDoc} A new one after each restart ({@link #stop()}, then {@link #start()}).
	 */
	@Override
	public String getClientId() {
		return this.parts.clientId;
	}

	/**
	 * Returns how many replicas must acknowledge each acquisition (replica sync).
	 * @return the number of replicas; 0 when replica sync is off
	 */
	public int getSyncReplicas() {
		return this.syncReplicas;
	}

	/**
	 * Returns how long an acquisition waits for its replicas to acknowledge it (replica sync).
	 * @return the sync timeout; unused when replica sync is off
	 */
	public Duration getSyncTimeout() {
		return this.syncTimeout;
	}

	/**
	 * Returns the pub/sub channel that read/write releases are published on: the key prefix followed by
	 * {@code __released}; each message is the released lock's Redis key. Grants of reentrant locks and of
	 * semaphore permits to a client's waiters go to {@code <this channel>:<client id>}, each message
	 * {@code <owner id> <wait id> <fencing token> <key>}.
	 * @return the channel name
	 */
	public String getChannel() {
		return this.channel;
	}

	/** The release channel of a key prefix: starts with it, so that one ACL pattern covers keys and channels. */
	static String channel(String keyPrefix) {
		return keyPrefix + "__released";
	}

	/**
	 * Returns the Redis key of a lock.
	 * @param key the lock key
	 * @return the key prefix followed by {@code key}
	 */
	public String redisKey(String key) {
		return this.keyPrefix + key;
	}

	/**
	 * {@inheritDoc} Waits for the non-blocking acquisition; an interrupt (when {@code interruptible}) gives it
	 * up, unless the lock was acquired at that moment (then the handle is returned with the interrupt status
	 * set).
	 * @throws IllegalStateException if the lock's key is held as the other kind of lock (reentrant vs
	 * read/write)
	 */
	@Override
	public @Nullable LockHandle acquire(String key, LockType type, Duration lease, boolean autoRenew,
			Duration holdAtLeast, @Nullable Duration timeout, boolean interruptible) throws InterruptedException {
		return acquire(key, type, 1, lease, autoRenew, holdAtLeast, timeout, interruptible);
	}

	/**
	 * {@inheritDoc} A semaphore's waiters queue in Redis, first come, first served across instances.
	 * @throws IllegalStateException if the lock's key is held as another kind of lock or with another permit
	 * count
	 */
	@Override
	public @Nullable LockHandle acquire(String key, LockType type, int permits, Duration lease, boolean autoRenew,
			Duration holdAtLeast, @Nullable Duration timeout, boolean interruptible) throws InterruptedException {
		ClientParts parts = this.parts;
		Hold hold = start(parts, key, type, permits, lease, autoRenew, holdAtLeast, timeout,
				Thread.currentThread().getId(), Thread.currentThread()).await(interruptible);
		return (hold != null) ? RedisLockHandle.open(parts.releaser, hold) : null;
	}

	/**
	 * {@inheritDoc} The hold belongs to the calling thread (see the class description).
	 * @throws IllegalStateException if the lock's key is held as the other kind of lock
	 */
	@Override
	public boolean acquire(String key, LockType type, Duration lease, boolean autoRenew, @Nullable Duration timeout,
			boolean interruptible) throws InterruptedException {
		return start(this.parts, key, type, 1, lease, autoRenew, Duration.ZERO, timeout,
				Thread.currentThread().getId(), Thread.currentThread()).await(interruptible) != null;
	}

	@Override
	public long newAsyncOwner() {
		return -this.asyncOwners.incrementAndGet();
	}

	/**
	 * {@inheritDoc} On Lettuce the future completes on one of its I/O threads.
	 */
	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(String key, LockType type, Duration lease,
			boolean autoRenew, Duration holdAtLeast, @Nullable Duration timeout, long owner) {
		return acquireAsync(key, type, 1, lease, autoRenew, holdAtLeast, timeout, owner);
	}

	/**
	 * {@inheritDoc} On Lettuce the future completes on one of its I/O threads.
	 */
	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(String key, LockType type, int permits,
			Duration lease, boolean autoRenew, Duration holdAtLeast, @Nullable Duration timeout, long owner) {
		if (owner >= 0) {
			return CompletableFuture.failedFuture(
					new IllegalArgumentException("Owner " + owner + " is not from newAsyncOwner()"));
		}
		ClientParts parts = this.parts;
		Acquisition acquisition;
		try {
			acquisition = start(parts, key, type, permits, lease, autoRenew, holdAtLeast, timeout, owner, null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return RedisLockHandle.whenAcquired(acquisition, parts.releaser);
	}

	private static Acquisition start(ClientParts parts, String key, LockType type, int permits, Duration lease,
			boolean autoRenew, Duration holdAtLeast, @Nullable Duration timeout, long owner, @Nullable Thread thread) {
		parts.checkOpen();
		return parts.acquirer.acquire(key, type, permits, lease, autoRenew, holdAtLeast, timeout, owner, thread);
	}

	@Override
	public void release(String key, LockType type) {
		ClientParts parts = this.parts;
		Hold hold = parts.holds.get(new HoldId(key, type, Thread.currentThread().getId()));
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + key + "' (" + type + ") is not held by the current thread, so it cannot release it");
		}
		ScriptExecutor.await(parts.releaser.release(hold, false));
	}

	/**
	 * Returns how many lock keys have local waiters right now; for tests and diagnostics.
	 * @return the number of keys with at least one waiting owner
	 */
	int waitingKeys() {
		return this.parts.notifications.waitingKeys();
	}

	/**
	 * Returns how many owners of this client wait in the local queue of an exclusive lock, behind the one
	 * that holds it or acquires it in Redis; for tests and diagnostics.
	 * @param key the lock key
	 * @param type {@link LockType#REENTRANT} or {@link LockType#WRITE}
	 * @return the number of owners queued locally
	 */
	int queuedThreads(String key, LockType type) {
		return this.parts.queuedOwners(this.keyPrefix + key, type);
	}

	/**
	 * Returns how many owners of this client wait in the local queue of a reentrant lock; for tests and
	 * diagnostics.
	 * @param key the lock key
	 * @return the number of owners queued locally
	 */
	int queuedThreads(String key) {
		return queuedThreads(key, LockType.REENTRANT);
	}

	/**
	 * Tells whether release notifications arrive, for health checks and diagnostics; without them waiters
	 * still get their locks, but only when the holder's lease would end.
	 * @return {@code true} while the pub/sub subscription is up
	 */
	public boolean isListening() {
		return this.parts.notifications.isListening();
	}

	/**
	 * Returns why a hold of the calling thread was lost, as far as this client knows yet; for tests and
	 * diagnostics.
	 * @param key the lock key
	 * @param type the lock type
	 * @return the reason, or {@code null} if the thread holds no such lock or it is not known to be lost
	 */
	@Nullable String lostReason(String key, LockType type) {
		Hold hold = this.parts.holds.get(new HoldId(key, type, Thread.currentThread().getId()));
		return (hold != null) ? hold.lostReason : null;
	}

	@Override
	public boolean isHeldByCurrentThread(String key, LockType type) {
		return this.parts.holds.containsKey(new HoldId(key, type, Thread.currentThread().getId()));
	}

	/**
	 * Releases every lock this client still holds at once, each with a warning naming the lock and its holder,
	 * and stops the watchdog and the subscription; those holders' releases then throw
	 * {@link LockLostException}, without a round trip. Idempotent. {@link #stop()} first gives running holders
	 * a grace period.
	 */
	@Override
	public void close() {
		this.parts.close();
	}

	/**
	 * Starts the client again after {@link #stop()} or {@link #close()} (an application context restarted, or
	 * restored from a checkpoint): with a new client id, renewal, listening and threads of its own; handles of
	 * the earlier run stay lost. Does nothing while the client is open: it is ready when constructed.
	 * @throws IllegalArgumentException if replica sync is on and can no longer be set up (see the constructor)
	 */
	@Override
	public synchronized void start() {
		if (this.parts.closed.get()) {
			this.parts = newParts(ReplicaSync.of(this.connectionFactory, this.syncReplicas, this.syncTimeout));
		}
	}

	/**
	 * Stops the client gracefully: waits up to the {@linkplain #setShutdownTimeout(Duration) shutdown timeout}
	 * for the owners that hold locks to release them (they are renewed meanwhile, and released normally),
	 * then {@linkplain #close() closes} it, releasing what is left. In an application context this runs in
	 * phase {@link #PHASE}, before the Redis connection factory stops; it blocks its phase while it waits.
	 */
	@Override
	public void stop() {
		ClientParts parts = this.parts;
		if (!parts.closed.get()) {
			parts.shutdownGrace.await(this.shutdownTimeout);
			parts.close();
		}
	}

	/**
	 * Tells whether the client is open.
	 * @return {@code false} once closed
	 */
	@Override
	public boolean isRunning() {
		return !this.parts.closed.get();
	}

	/**
	 * Returns {@link #PHASE}.
	 * @return the lifecycle phase
	 */
	@Override
	public int getPhase() {
		return PHASE;
	}

}
