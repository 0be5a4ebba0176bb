package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockCapabilities;
import io.github.distributedlock.core.LockCapability;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.redis.Hold.HoldId;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A {@link LockClient} on Redis: the entry point of this package, whose description says how the locks work
 * (data, read/write, renewal, waiting, the non-blocking core, owners, reentrancy, replica sync, threads).
 * {@link #acquireAsync} and {@link LockHandle#closeAsync()} use the non-blocking core as it is; the blocking
 * methods ({@link #acquire}, {@link #release}) wait for it. Owners are threads or, from {@link #newAsyncOwner()},
 * asynchronous calls and reactive chains; Redis records each acquisition attempt of an owner under its own id,
 * {@code <client id>:<thread id>/<attempt>} or {@code <client id>:async-<n>/<attempt>}.
 * <p>
 * Redis commands fail within the connection factory's command timeout ({@code spring.data.redis.timeout});
 * such failures surface as {@link io.github.distributedlock.core.DistributedLockException}.
 * <p>
 * Shutdown: {@link #stop()} (the application context's lifecycle) waits up to the shutdown timeout for
 * running holders to release their locks, renewing them meanwhile, then {@link #close() closes}, releasing
 * what is left with a warning; those holders' releases then throw {@link LockLostException}. {@link #start()}
 * after that (a restarted application context) opens the client again, as a new instance with a new client id:
 * each run of the client is a {@link ClientSession} of its own, and every operation reads the current one once.
 * <p>
 * Thread-safe.
 */
public final class RedisLockClient implements LockClient, SmartLifecycle, AutoCloseable {

	/**
	 * Lifecycle phase: stopped after a web server's graceful shutdown ({@code Integer.MAX_VALUE - 1024}) and
	 * after task executors stopped taking tasks ({@code Integer.MAX_VALUE}), and before the Redis connection
	 * factory ({@code 0}), so held locks are renewed, and released, while Redis is still reachable.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 2048;

	/** Default of {@code distributed-lock.sync-timeout}: how long an acquisition waits for replicas. */
	public static final Duration DEFAULT_SYNC_TIMEOUT = Duration.ofMillis(100);

	private static final LockCapabilities CAPABILITIES = LockCapabilities.of("redis", LockCapability.READ_WRITE,
			LockCapability.SEMAPHORES, LockCapability.ASYNC, LockCapability.MINIMUM_HOLD);

	/** Default of {@link #setShutdownTimeout(Duration)}. */
	public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

	private final RedisConnectionFactory connectionFactory;

	private final String keyPrefix;

	private final NotificationChannels channels;

	private final int syncReplicas;

	private final Duration syncTimeout;

	/** Numbers the owners that are not threads. */
	private final AtomicLong asyncOwners = new AtomicLong();

	/** The current run: made anew by {@link #start()} after a {@link #stop()} or {@link #close()}. */
	private volatile ClientSession session;

	private volatile LockObserver observer = LockObserver.NONE;

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
		this(connectionFactory, keyPrefix, syncReplicas, syncTimeout, NotificationMode.AUTO);
	}

	/**
	 * Creates a client as {@link #RedisLockClient(RedisConnectionFactory, String, int, Duration)} does, with release
	 * notifications in the given mode. {@link NotificationMode#AUTO} reads the server's version on a Lettuce
	 * cluster (one round trip, see {@link NotificationMode#resolve}); every client of the same locks must end up in
	 * the same mode.
	 * @param connectionFactory the Redis connections
	 * @param keyPrefix prefix of every Redis key it writes, such as {@code "lock:"}; may be empty
	 * @param syncReplicas how many replicas must acknowledge each acquisition; 0 turns replica sync off
	 * @param syncTimeout how long an acquisition waits for them, at least 1 ms; ignored when off
	 * @param notifications how release notifications travel ({@code distributed-lock.notifications})
	 * @throws IllegalArgumentException as the constructor above, or if {@code notifications} is
	 * {@link NotificationMode#SHARDED} and the factory is not Lettuce's for a Redis Cluster
	 */
	public RedisLockClient(RedisConnectionFactory connectionFactory, String keyPrefix, int syncReplicas,
			Duration syncTimeout, NotificationMode notifications) {
		this(connectionFactory, keyPrefix, releaseChannels(connectionFactory, keyPrefix, notifications), syncReplicas,
				syncTimeout);
	}

	private RedisLockClient(RedisConnectionFactory connectionFactory, String keyPrefix, NotificationChannels channels,
			int syncReplicas, Duration syncTimeout) {
		this.connectionFactory = connectionFactory;
		this.keyPrefix = keyPrefix;
		this.channels = channels;
		this.syncReplicas = syncReplicas;
		this.syncTimeout = Objects.requireNonNull(syncTimeout, "syncTimeout must not be null");
		this.session = newSession();
	}

	/** Makes the session of a run, under a new client id: nothing of an earlier run can be taken for its own. */
	private ClientSession newSession() {
		ClientSession session = new ClientSession(this.connectionFactory, this.keyPrefix, UUID.randomUUID().toString(),
				this.channels, replicaSync());
		session.events.setObserver(this.observer);
		return session;
	}

	/**
	 * The replica sync, if on. {@link ReplicaSync} links against Lettuce, so while it is off (the default) the class
	 * is not even loaded: an application on Jedis may have no Lettuce on its class path.
	 */
	private @Nullable ReplicaSync replicaSync() {
		return (this.syncReplicas == 0 && this.syncTimeout.toMillis() >= 1) ? null
				: ReplicaSync.of(this.connectionFactory, this.syncReplicas, this.syncTimeout);
	}

	/** The session of the current run; read once per operation, so that one operation sees one run. */
	ClientSession session() {
		return this.session;
	}

	private static NotificationChannels releaseChannels(RedisConnectionFactory connectionFactory, String keyPrefix,
			NotificationMode notifications) {
		Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		Objects.requireNonNull(notifications, "notifications must not be null");
		return new NotificationChannels(keyPrefix, notifications.resolve(connectionFactory, keyPrefix));
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.session.heldLocks();
	}

	/**
	 * {@inheritDoc} A new one after each restart ({@link #stop()}, then {@link #start()}).
	 */
	@Override
	public String getClientId() {
		return this.session.clientId;
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
	 * Returns the classic pub/sub channel that read/write releases are published on: the key prefix followed by
	 * {@code __released}; each message is the released lock's Redis key. Grants of reentrant locks and of
	 * semaphore permits to a client's waiters go to {@code <this channel>:<client id>}, each message
	 * {@code <owner id> <wait id> <fencing token> <key>}. In {@link NotificationMode#SHARDED} mode the channels are
	 * this name followed by a hash tag per slot ({@code <this channel>{<tag>}}, see {@code docs/redis-data.md}).
	 * @return the channel name
	 */
	public String getChannel() {
		return this.channels.classic();
	}

	/**
	 * Returns how this client's release notifications travel, as resolved when it was created.
	 * @return {@link NotificationMode#CLASSIC} or {@link NotificationMode#SHARDED}
	 */
	public NotificationMode getNotificationMode() {
		return this.channels.mode();
	}

	/** The release channels, in this client's mode. */
	NotificationChannels channels() {
		return this.channels;
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
	 * {@inheritDoc} Everything: read/write locks, semaphores, asynchronous acquisitions, minimum holds.
	 */
	@Override
	public LockCapabilities capabilities() {
		return CAPABILITIES;
	}

	/**
	 * {@inheritDoc} Waits for the non-blocking acquisition; an interrupt (when interruptible) gives it up, unless
	 * the lock was acquired at that moment (then the handle is returned with the interrupt status set). A
	 * semaphore's waiters queue in Redis, first come, first served across instances.
	 */
	@Override
	public @Nullable LockHandle acquire(LockRequest request) throws InterruptedException {
		request.checkCallingThread();
		ClientSession parts = this.session;
		parts.checkOpen();
		Thread thread = Thread.currentThread();
		Hold hold = parts.acquirer.acquire(request, thread.getId(), thread).await(request.interruptible());
		if (hold == null) {
			return null;
		}
		return request.releasedByThread() ? RedisLockHandle.ofThread(parts.releaser, hold)
				: RedisLockHandle.open(parts.releaser, hold);
	}

	@Override
	public long newAsyncOwner() {
		return -this.asyncOwners.incrementAndGet();
	}

	/**
	 * {@inheritDoc} On Lettuce the future completes on one of its I/O threads.
	 */
	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(LockRequest request) {
		ClientSession parts = this.session;
		Acquisition acquisition;
		try {
			parts.checkOpen();
			acquisition = parts.acquirer.acquire(request, request.asyncOwner(), null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return RedisLockHandle.whenAcquired(acquisition, parts.releaser);
	}

	@Override
	public void release(String key, LockType type) {
		ClientSession parts = this.session;
		Hold hold = parts.holds.get(new HoldId(key, type, Thread.currentThread().getId()));
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + key + "' (" + type + ") is not held by the current thread, so it cannot release it");
		}
		ScriptExecutor.await(parts.releaser.release(hold, false));
	}

	@Override
	public boolean isHeldByCurrentThread(String key, LockType type) {
		return this.session.holds.containsKey(new HoldId(key, type, Thread.currentThread().getId()));
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
		this.session.events.setObserver(observer);
	}

	/**
	 * Tells whether release notifications arrive, for health checks and diagnostics; without them waiters
	 * still get their locks, but only when the holder's lease would end.
	 * @return {@code true} while the pub/sub subscription is up
	 */
	public boolean isListening() {
		return this.session.notifications.isListening();
	}

	/**
	 * Releases every lock this client still holds at once, each with a warning naming the lock and its holder,
	 * and stops the watchdog and the subscription; those holders' releases then throw
	 * {@link LockLostException}, without a round trip. Idempotent. {@link #stop()} first gives running holders
	 * a grace period.
	 */
	@Override
	public void close() {
		this.session.close();
	}

	/**
	 * Starts the client again after {@link #stop()} or {@link #close()} (an application context restarted, or
	 * restored from a checkpoint): with a new client id, renewal, listening and threads of its own; handles of
	 * the earlier run stay lost. Does nothing while the client is open: it is ready when constructed.
	 * @throws IllegalArgumentException if replica sync is on and can no longer be set up (see the constructor)
	 */
	@Override
	public synchronized void start() {
		if (this.session.closed.get()) {
			this.session = newSession();
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
		ClientSession current = this.session;
		if (!current.closed.get()) {
			current.shutdownGrace.await(this.shutdownTimeout);
			current.close();
		}
	}

	/**
	 * Tells whether the client is open.
	 * @return {@code false} once closed
	 */
	@Override
	public boolean isRunning() {
		return !this.session.closed.get();
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
