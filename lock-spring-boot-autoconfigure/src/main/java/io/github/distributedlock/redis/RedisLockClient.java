package io.github.distributedlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.redis.Hold.HoldId;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A {@link LockClient} on Redis.
 * <ul>
 * <li><b>Data</b>: a reentrant lock is one Redis hash at {@code <key-prefix><key>} whose one field is the
 * owner id ({@code <client id>:<thread id>}, the client id a random UUID per instance) and its value the
 * hold count. The key's TTL is the lease. A read/write lock is also one hash (so one Redis Cluster slot),
 * with the writer, each reader and its own lease deadline, and waiting writers' claims (see
 * {@code rw_common.lua}). One key is one kind of lock at a time: acquiring a key held as the other kind is
 * refused with an {@link IllegalStateException}. Every check-then-act is one Lua script (see the {@code .lua}
 * files beside this class), so a release or renewal by anyone but the owner changes nothing.</li>
 * <li><b>Read/write</b>: readers share, a writer excludes everyone; the write holder may take the read
 * lock (downgrade), a reader may not take the write lock (upgrade: {@link IllegalMonitorStateException}).
 * A waiting writer makes new readers wait behind it, so readers cannot starve it; the readers waiting when
 * a writer releases enter before the next writer (phase-fair), so writers cannot starve readers either.</li>
 * <li><b>Renewal</b>: see {@link LeaseWatchdog}. If an extension finds the lock gone, or cannot reach Redis for
 * longer than the lease, the hold is marked lost and its release throws {@link LockLostException}.</li>
 * <li><b>Waiting</b>: see {@link WaitingAcquirer}. Owners of this client that want the same exclusive lock
 * queue locally (a fair {@link LocalQueue}), so only the first of them talks to Redis; the release of a
 * reentrant lock hands it to the next local waiter in its one round trip, unless another instance is queued
 * for it in Redis, which comes first. No thread waits: a release notification, a hand-over or a timer
 * completes the wait.</li>
 * <li><b>Non-blocking core</b>: every operation is a chain of asynchronous steps ({@link Acquisition},
 * {@link HoldReleaser}); on Lettuce with its shared connection (Spring Data Redis's default) scripts are sent
 * without blocking a thread ({@link LettuceScriptTransport}). {@link #acquireAsync} and
 * {@link LockHandle#closeAsync()} use it as it is; the blocking methods ({@link #acquire}, {@link #release})
 * wait for it. With a blocking client (Jedis) each script blocks the thread that sends it.</li>
 * <li><b>Owners</b>: a thread ({@code <client id>:<thread id>}), or an owner that is not a thread
 * ({@code <client id>:async-<n>}, from {@link #newAsyncOwner()}: one asynchronous call or reactive chain).</li>
 * <li><b>Reentrancy</b>: a re-entry while the lease is confirmed for at least a third of its length more
 * is counted locally, without a round trip; only the last release goes to Redis, and it releases every hold
 * Redis records for the owner (also one whose round trip timed out after it ran).</li>
 * <li><b>Replica sync</b> (opt-in, see {@link ReplicaSync}): every acquisition waits with {@code WAIT} until
 * enough replicas have the lock; one they do not acknowledge in time is undone and tried again.</li>
 * <li><b>Threads</b>: a hold taken through a {@link java.util.concurrent.locks.Lock} view belongs to its
 * thread, which must release it. On a pool thread, release it before the task ends: the pool's next task on
 * that thread is the same owner and would re-enter it. A hold whose thread ended without releasing it is not
 * renewed: the watchdog releases it at its next renewal, with a warning. A hold with an open
 * {@link LockHandle} is exempt (any thread may close a handle).</li>
 * </ul>
 * Redis commands fail within the connection factory's command timeout ({@code spring.data.redis.timeout});
 * such failures surface as {@link DistributedLockException}.
 * <p>
 * Shutdown: {@link #stop()} (the application context's lifecycle) waits up to the shutdown timeout for
 * running holders to release their locks, renewing them meanwhile, then {@link #close() closes}, releasing
 * what is left with a warning; those holders' releases then throw {@link LockLostException}.
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

	private final String clientId = UUID.randomUUID().toString();

	private final String keyPrefix;

	private final String channel;

	private final int syncReplicas;

	private final Duration syncTimeout;

	/** Replica sync, or {@code null} when off. */
	private final @Nullable ReplicaSync replicaSync;

	private final ClientThreads threads;

	private final ReleaseNotifications notifications;

	private final LeaseWatchdog watchdog;

	private final HoldAcquirer holdAcquirer;

	private final HoldReleaser releaser;

	private final ConcurrentHashMap<HoldId, Hold> holds = new ConcurrentHashMap<>();

	private final LocalQueues queues;

	private final ShutdownGrace shutdownGrace = new ShutdownGrace(this.holds.values());

	private final AtomicBoolean closed = new AtomicBoolean();

	/** Numbers the owners that are not threads. */
	private final AtomicLong asyncOwners = new AtomicLong();

	/** What the observer and the log are told of acquisitions, releases and losses. */
	private final HoldEvents events = new HoldEvents();

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
		Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		Objects.requireNonNull(syncTimeout, "syncTimeout must not be null");
		if (syncReplicas < 0) {
			throw new IllegalArgumentException("sync-replicas must be 0 (off) or more, was " + syncReplicas);
		}
		if (syncTimeout.toMillis() < 1) {
			// WAIT with 0 ms would wait for ever
			throw new IllegalArgumentException("sync-timeout must be at least 1ms, was " + syncTimeout);
		}
		this.syncReplicas = syncReplicas;
		this.syncTimeout = syncTimeout;
		this.replicaSync = (syncReplicas > 0) ? new ReplicaSync(connectionFactory, syncReplicas, syncTimeout) : null;
		this.channel = keyPrefix + "__released";
		LockCommands commands = new LockCommands(new ScriptExecutor(connectionFactory), this.channel);
		String threadName = "distributed-lock-" + this.clientId.substring(0, 8);
		this.threads = new ClientThreads(threadName, commands.isBlocking());
		this.queues = new LocalQueues(this.threads.timer);
		this.notifications = new ReleaseNotifications(connectionFactory, this.channel, this.clientId,
				this.threads.subscriber);
		this.watchdog = new LeaseWatchdog(threadName, commands, this.events, this.threads.timer);
		this.releaser = new HoldReleaser(this.holds, this.queues, commands, this.shutdownGrace, this.closed,
				this.events, this.watchdog);
		this.watchdog.setOrphanHandler(this.releaser::releaseOrphan);
		WaitingAcquirer waiting = new WaitingAcquirer(commands, this.notifications, this.watchdog::runInBackground,
				this.threads.timer, this.threads.resume);
		this.holdAcquirer = new HoldAcquirer(keyPrefix, this.clientId, this.holds, this.queues, commands, waiting,
				this.watchdog, this.replicaSync, this.releaser, this.events, this.threads.resume,
				this.watchdog::runInBackground);
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
	public void setLockObserver(LockObserver observer) {
		this.events.setObserver(observer);
	}

	@Override
	public List<HeldLock> heldLocks() {
		List<HeldLock> held = new ArrayList<>(this.holds.size());
		long nanoNow = System.nanoTime();
		Instant now = Instant.now();
		for (Hold hold : this.holds.values()) {
			held.add(hold.snapshot(now, nanoNow));
		}
		return held;
	}

	@Override
	public String getClientId() {
		return this.clientId;
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
	 * {@code __released}; each message is the released lock's Redis key. Grants of reentrant locks to a
	 * client's waiters go to {@code <this channel>:<client id>}, each message {@code <owner id> <wait id> <key>}.
	 * @return the channel name
	 */
	public String getChannel() {
		return this.channel;
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
		Hold hold = await(start(key, type, lease, autoRenew, holdAtLeast, timeout, Thread.currentThread().getId(),
				Thread.currentThread()), interruptible);
		return (hold != null) ? RedisLockHandle.open(this.releaser, hold) : null;
	}

	/**
	 * {@inheritDoc} The hold belongs to the calling thread (see the class description).
	 * @throws IllegalStateException if the lock's key is held as the other kind of lock
	 */
	@Override
	public boolean acquire(String key, LockType type, Duration lease, boolean autoRenew, @Nullable Duration timeout,
			boolean interruptible) throws InterruptedException {
		return await(start(key, type, lease, autoRenew, Duration.ZERO, timeout, Thread.currentThread().getId(),
				Thread.currentThread()), interruptible) != null;
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
		if (owner >= 0) {
			return CompletableFuture.failedFuture(
					new IllegalArgumentException("Owner " + owner + " is not from newAsyncOwner()"));
		}
		Acquisition acquisition;
		try {
			acquisition = start(key, type, lease, autoRenew, holdAtLeast, timeout, owner, null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return RedisLockHandle.whenAcquired(acquisition, this.releaser);
	}

	private Acquisition start(String key, LockType type, Duration lease, boolean autoRenew, Duration holdAtLeast,
			@Nullable Duration timeout, long owner, @Nullable Thread thread) {
		Objects.requireNonNull(key, "key must not be null");
		Objects.requireNonNull(type, "type must not be null");
		Objects.requireNonNull(lease, "lease must not be null");
		Objects.requireNonNull(holdAtLeast, "holdAtLeast must not be null");
		checkOpen();
		LockDefinition.checkLease(lease, autoRenew, "lease of lock '" + key + "'");
		return this.holdAcquirer.acquire(new HoldId(key, type, owner), thread, lease.toMillis(), autoRenew,
				saturatedNanos(holdAtLeast), timeout);
	}

	/**
	 * Waits for an acquisition on the calling thread. An interrupt, when {@code interruptible}, cancels it; if
	 * the lock was acquired at that moment the hold is returned and the interrupt status set again.
	 */
	private static @Nullable Hold await(Acquisition acquisition, boolean interruptible) throws InterruptedException {
		if (!interruptible) {
			return ScriptExecutor.await(acquisition.result());
		}
		try {
			return acquisition.result().get();
		}
		catch (ExecutionException ex) {
			throw ScriptExecutor.unwrap(ex);
		}
		catch (InterruptedException ex) {
			acquisition.cancel();
			// a cancelled acquisition ends within a round trip: with the lock, if a try in flight got it
			Hold hold = ScriptExecutor.await(acquisition.result());
			if (hold == null) {
				throw ex;
			}
			Thread.currentThread().interrupt();
			return hold;
		}
	}

	@Override
	public void release(String key, LockType type) {
		Hold hold = this.holds.get(new HoldId(key, type, Thread.currentThread().getId()));
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + key + "' (" + type + ") is not held by the current thread, so it cannot release it");
		}
		ScriptExecutor.await(this.releaser.release(hold, false));
	}

	/**
	 * Returns how many lock keys have local waiters right now; for tests and diagnostics.
	 * @return the number of keys with at least one waiting owner
	 */
	int waitingKeys() {
		return this.notifications.waitingKeys();
	}

	/**
	 * Returns how many owners of this client wait in the local queue of an exclusive lock, behind the one
	 * that holds it or acquires it in Redis; for tests and diagnostics.
	 * @param key the lock key
	 * @param type {@link LockType#REENTRANT} or {@link LockType#WRITE}
	 * @return the number of owners queued locally
	 */
	int queuedThreads(String key, LockType type) {
		LocalQueue queue = this.queues.get(this.keyPrefix + key, type);
		return (queue != null) ? queue.waiting() : 0;
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
		return this.notifications.isListening();
	}

	/**
	 * Returns why a hold of the calling thread was lost, as far as this client knows yet; for tests and
	 * diagnostics.
	 * @param key the lock key
	 * @param type the lock type
	 * @return the reason, or {@code null} if the thread holds no such lock or it is not known to be lost
	 */
	@Nullable String lostReason(String key, LockType type) {
		Hold hold = this.holds.get(new HoldId(key, type, Thread.currentThread().getId()));
		return (hold != null) ? hold.lostReason : null;
	}

	@Override
	public boolean isHeldByCurrentThread(String key, LockType type) {
		return this.holds.containsKey(new HoldId(key, type, Thread.currentThread().getId()));
	}

	/**
	 * Releases every lock this client still holds at once, each with a warning naming the lock and its holder,
	 * and stops the watchdog and the subscription; those holders' releases then throw
	 * {@link LockLostException}, without a round trip. Idempotent. {@link #stop()} first gives running holders
	 * a grace period.
	 */
	@Override
	public void close() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		this.releaser.releaseAll();
		this.watchdog.close();
		this.notifications.close();
		this.threads.close();
		if (this.replicaSync != null) {
			this.replicaSync.close();
		}
	}

	/**
	 * Does nothing: the client is ready when constructed.
	 */
	@Override
	public void start() {
	}

	/**
	 * Stops the client gracefully: waits up to the {@linkplain #setShutdownTimeout(Duration) shutdown timeout}
	 * for the owners that hold locks to release them (they are renewed meanwhile, and released normally),
	 * then {@linkplain #close() closes} it, releasing what is left. In an application context this runs in
	 * phase {@link #PHASE}, before the Redis connection factory stops; it blocks its phase while it waits.
	 */
	@Override
	public void stop() {
		if (!this.closed.get()) {
			this.shutdownGrace.await(this.shutdownTimeout);
			close();
		}
	}

	/**
	 * Tells whether the client is open.
	 * @return {@code false} once closed
	 */
	@Override
	public boolean isRunning() {
		return !this.closed.get();
	}

	/**
	 * Returns {@link #PHASE}.
	 * @return the lifecycle phase
	 */
	@Override
	public int getPhase() {
		return PHASE;
	}

	private void checkOpen() {
		if (this.closed.get()) {
			throw new DistributedLockException("This lock client is closed (the application is shutting down)");
		}
	}

	static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 2;
		}
	}

}
