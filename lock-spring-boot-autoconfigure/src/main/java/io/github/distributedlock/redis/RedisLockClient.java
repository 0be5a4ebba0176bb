package io.github.distributedlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.redis.Hold.HoldId;
import io.github.distributedlock.redis.LocalQueue.Turn;
import io.github.distributedlock.redis.LocalQueue.Waiter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A {@link LockClient} on Redis.
 * <ul>
 * <li><b>Data</b>: a reentrant lock is one Redis hash at {@code <key-prefix><key>} whose one field is the
 * owner id ({@code <client id>:<thread id>}, the client id a random UUID per instance) and its value the
 * hold count. The key's TTL is the lease. A read/write lock is also one hash (so one Redis Cluster slot),
 * with the writer, each reader and its own lease deadline, and waiting writers' claims (see
 * {@code rw_common.lua}). Every check-then-act is one Lua script (see the {@code .lua} files beside this
 * class), so a release or renewal by anyone but the owner changes nothing.</li>
 * <li><b>Read/write</b>: readers share, a writer excludes everyone; the write holder may take the read
 * lock (downgrade), a reader may not take the write lock (upgrade: {@link IllegalMonitorStateException}).
 * A waiting writer makes new readers wait behind it, so readers cannot starve it; the readers waiting when
 * a writer releases enter before the next writer (phase-fair), so writers cannot starve readers either.</li>
 * <li><b>Renewal</b> (the watchdog): one task per client extends the lease of every held auto-renew lock
 * a third of its lease after the last extension; it runs only when some lock is due, so locks held for
 * less than a third of their lease cost no scheduling. If an extension finds the lock gone, or cannot reach Redis for longer than
 * the lease, the hold is marked lost and its release throws {@link LockLostException}.</li>
 * <li><b>Waiting</b>: a waiter sleeps until it is woken through this client's one Redis pub/sub subscription
 * (see {@link ReleaseNotifications}) or until the holder's remaining lease ends, when a crashed holder's lock
 * expires; then it tries again. No busy polling. A reentrant lock is first come, first served across
 * instances: a waiter queues in the lock's hash, and the release grants the lock to the one that waited
 * longest and wakes only that waiter, which holds it already (no herd of retries); queued waiters still try
 * again at least once a second, so a grant to a waiter that died costs only that waiter's lease. Threads of
 * this client that want the same exclusive lock queue locally (a fair local queue), so only the first of
 * them talks to Redis; the release of a reentrant lock hands it to the next local waiter in its one round
 * trip, unless another instance is queued for it in Redis, which comes first.</li>
 * <li><b>Reentrancy</b>: a re-entry while the lease is confirmed for at least a third of its length more
 * is counted locally, without a round trip; only the last release goes to Redis.</li>
 * </ul>
 * Redis commands fail within the connection factory's command timeout ({@code spring.data.redis.timeout});
 * such failures surface as {@link DistributedLockException}.
 * <p>
 * Thread-safe. {@link #close()} releases what it still holds; call it at shutdown (the auto-configured
 * bean is closed by the application context).
 */
public final class RedisLockClient implements LockClient, SmartLifecycle {

	/**
	 * Lifecycle phase: stopped after a web server's graceful shutdown ({@code Integer.MAX_VALUE - 1024}) and
	 * before the Redis connection factory, so held locks are released while Redis is still reachable.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 2048;

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	/**
	 * How long the readers waiting at a writer's release keep their place before the next writer
	 * (milliseconds): woken by the release, they normally enter within a round trip; an admission not used in
	 * time (a reader that died) then no longer holds writers up.
	 */
	private static final String ADMISSION_MILLIS = "1000";

	/**
	 * Longest wait of a reentrant waiter queued in Redis between two tries: a grant to a waiter that died then
	 * holds the others up for that waiter's lease, not for the previous holder's; each try keeps the waiter's
	 * place in the queue.
	 */
	private static final long QUEUED_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** Wait bound when a foreign key without a TTL blocks the lock: it cannot expire, so retry now and then. */
	private static final long NO_TTL_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private final String clientId = UUID.randomUUID().toString();

	private final ScriptExecutor scripts;

	private final String keyPrefix;

	private final String channel;

	private final ReleaseNotifications notifications;

	private final ScheduledThreadPoolExecutor watchdog;

	private final ConcurrentHashMap<HoldId, Hold> holds = new ConcurrentHashMap<>();

	/** Local queues of exclusive locks by Redis key, while any thread of this client holds or waits for one. */
	private final ConcurrentHashMap<String, LocalQueue> queues = new ConcurrentHashMap<>();

	private final AtomicBoolean closed = new AtomicBoolean();

	private final HoldEvents events = new HoldEvents();

	/** Numbers the waits in Redis, so that a grant wakes the wait it was made for and no later one. */
	private final AtomicLong waitIds = new AtomicLong();

	/** {@link System#nanoTime()} of the next scheduled renewal sweep, {@code Long.MAX_VALUE} if none. */
	private final AtomicLong nextSweep = new AtomicLong(Long.MAX_VALUE);

	/**
	 * Creates a client and subscribes to release notifications. Redis being unreachable does not fail the
	 * construction: acquisitions fail until it is back, and the subscription is made then.
	 * @param connectionFactory the Redis connections; the client opens one more for its subscription
	 * @param keyPrefix prefix of every Redis key it writes, such as {@code "lock:"}; may be empty
	 */
	public RedisLockClient(RedisConnectionFactory connectionFactory, String keyPrefix) {
		Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		this.channel = keyPrefix + "__released";
		this.scripts = new ScriptExecutor(connectionFactory);
		// two threads: a subscription attempt while Redis is down must not hold up lease renewals
		this.watchdog = new ScheduledThreadPoolExecutor(2, (task) -> {
			Thread thread = new Thread(task, "distributed-lock-" + this.clientId.substring(0, 8));
			thread.setDaemon(true);
			return thread;
		});
		this.watchdog.setRemoveOnCancelPolicy(true);
		this.notifications = new ReleaseNotifications(connectionFactory, this.channel, this.clientId, this.watchdog);
	}

	@Override
	public String getClientId() {
		return this.clientId;
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
	 * Sets what is told when a lock is acquired, released, lost or not renewed (see {@link LockObserver});
	 * {@link LockObserver#NONE} by default. Acquisitions and releases are also logged at DEBUG, losses at WARN.
	 * @param observer the observer; {@link LockObserver#of} combines several
	 */
	public void setLockObserver(LockObserver observer) {
		this.events.setObserver(observer);
	}

	@Override
	public @Nullable LockHandle acquire(String key, LockType type, Duration lease, boolean autoRenew,
			Duration holdAtLeast, @Nullable Duration timeout, boolean interruptible) throws InterruptedException {
		Objects.requireNonNull(key, "key must not be null");
		Objects.requireNonNull(type, "type must not be null");
		Objects.requireNonNull(lease, "lease must not be null");
		Objects.requireNonNull(holdAtLeast, "holdAtLeast must not be null");
		checkOpen();
		LockDefinition.checkLease(lease, autoRenew, "lease of lock '" + key + "'");
		long leaseMillis = lease.toMillis();
		long holdAtLeastNanos = saturatedNanos(holdAtLeast);
		long threadId = Thread.currentThread().getId();
		HoldId id = new HoldId(key, type, threadId);
		Hold held = this.holds.get(id);
		if (held != null && reenter(held, leaseMillis)) {
			return handle(held, holdAtLeastNanos);
		}
		if (type == LockType.WRITE && this.holds.containsKey(new HoldId(key, LockType.READ, threadId))) {
			throw upgradeRefused(key);
		}
		String redisKey = this.keyPrefix + key;
		String owner = this.clientId + ":" + threadId;
		boolean tryOnce = timeout != null && timeout.isZero();
		long deadline = (timeout == null) ? Long.MAX_VALUE : System.nanoTime() + saturatedNanos(timeout);
		if (type == LockType.READ) {
			Hold hold = acquireInRedis(id, redisKey, owner, leaseMillis, autoRenew, tryOnce, deadline, interruptible);
			return handle(hold, holdAtLeastNanos);
		}
		// exclusive locks: threads of this client queue locally, so only the head of the queue talks to Redis
		LocalQueue queue = joinQueue(redisKey);
		boolean head = false;
		Hold hold = null;
		boolean[] interrupted = { false };
		try {
			Turn turn = queue.take(owner, leaseMillis, tryOnce, deadline, interruptible, interrupted);
			if (turn == Turn.TIMED_OUT) {
				return null;
			}
			head = turn != Turn.BYPASS;
			hold = turn.handedOver()
					? onAcquired(id, redisKey, owner, leaseMillis, autoRenew, turn.handedOverAt(), turn.token())
					: acquireInRedis(id, redisKey, owner, leaseMillis, autoRenew, tryOnce, deadline, interruptible);
			if (hold != null) {
				hold.queue = queue;
				hold.queueHead = head;
				if (head && !hold.autoRenew) {
					// a hard lease: local waiters stop waiting for this holder when its lease ends
					queue.holderDeadline = hold.confirmedUntil;
				}
			}
			return handle(hold, holdAtLeastNanos);
		}
		finally {
			if (hold == null) {
				if (head) {
					queue.leave(null);
				}
				leaveQueue(redisKey, queue);
			}
			if (interrupted[0]) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private @Nullable LockHandle handle(@Nullable Hold hold, long holdAtLeastNanos) {
		if (hold == null) {
			return null;
		}
		// counted from now, when the acquisition is known to have happened: the lock is then held at least that long
		hold.holdAtLeast(System.nanoTime(), holdAtLeastNanos);
		return new RedisLockHandle(this, hold);
	}

	private LocalQueue joinQueue(String redisKey) {
		return this.queues.compute(redisKey, (k, queue) -> {
			LocalQueue joined = (queue != null) ? queue : new LocalQueue();
			joined.members++;
			return joined;
		});
	}

	private void leaveQueue(String redisKey, LocalQueue queue) {
		this.queues.computeIfPresent(redisKey, (k, current) -> {
			current.members--;
			return (current.members == 0) ? null : current;
		});
	}

	/**
	 * Acquires in Redis for the calling thread, waiting for release notifications or the holder's lease end.
	 * @return the new hold, or {@code null} if the deadline passed first
	 */
	private @Nullable Hold acquireInRedis(HoldId id, String redisKey, String owner, long leaseMillis,
			boolean autoRenew, boolean tryOnce, long deadline, boolean interruptible) throws InterruptedException {
		String key = id.key();
		LockType type = id.type();
		long waitId = this.waitIds.incrementAndGet();
		// register before the first try: a release between a failed try and the wait still wakes us
		ReleaseNotifications.Waiter waiter = tryOnce ? null : this.notifications.register(redisKey, waitId);
		boolean interrupted = false;
		boolean acquired = false;
		boolean claimed = false;
		try {
			while (true) {
				long sentAt = System.nanoTime();
				// a blocked reentrant waiter queues in Redis for a grant; a blocked writer claims the lock (for
				// one lease) so new readers queue behind it; a blocked reader claims it so that the next
				// writer's release admits it
				long claim = tryOnce ? 0
						: (type == LockType.REENTRANT) ? waitMillis(Math.min(deadline - sentAt, QUEUED_RETRY_NANOS))
						: leaseMillis;
				ScriptExecutor.Pair tried = tryAcquire(type, key, redisKey, owner, leaseMillis, false, claim, waitId);
				long result = tried.result();
				if (result == LockScripts.ACQUIRED) {
					acquired = true;
					return onAcquired(id, redisKey, owner, leaseMillis, autoRenew, sentAt, tried.token());
				}
				if (result == LockScripts.UPGRADE) {
					throw upgradeRefused(key);
				}
				claimed |= claim > 0 && (result >= 0 || result == LockScripts.NO_TTL);
				if (waiter == null) {
					return null;
				}
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					return null;
				}
				// the holder's lease bounds the wait: a crashed holder publishes nothing
				long untilLeaseEnds = (result == LockScripts.NO_TTL) ? NO_TTL_RETRY_NANOS
						: TimeUnit.MILLISECONDS.toNanos(result + 1);
				if (type == LockType.REENTRANT) {
					untilLeaseEnds = Math.min(untilLeaseEnds, QUEUED_RETRY_NANOS);
				}
				try {
					waiter.await(Math.min(remaining, untilLeaseEnds));
				}
				catch (InterruptedException ex) {
					if (interruptible && !waiter.isGranted()) {
						throw ex;
					}
					interrupted = true;
				}
				// granted after this wait's last failed try reached Redis, so its lease counts from no earlier
				// than that try; if that was long ago, the next try finds the grant and confirms a full lease
				if (waiter.isGranted() && System.nanoTime() - sentAt < Hold.thirdOfLeaseNanos(leaseMillis)) {
					acquired = true;
					return onAcquired(id, redisKey, owner, leaseMillis, autoRenew, sentAt, waiter.grantedToken());
				}
			}
		}
		finally {
			if (waiter != null) {
				this.notifications.unregister(waiter);
			}
			if (claimed && !acquired) {
				withdrawClaim(type, key, redisKey, owner);
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** A wait of {@code nanos} in whole milliseconds, rounded up, at least 1. */
	private static long waitMillis(long nanos) {
		return Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos) + 1);
	}

	private void withdrawClaim(LockType type, String key, String redisKey, String owner) {
		RedisScript<Long> cancel = switch (type) {
			case REENTRANT -> LockScripts.REENTRANT_CANCEL;
			case READ -> LockScripts.READ_CANCEL;
			case WRITE -> LockScripts.WRITE_CANCEL;
		};
		try {
			this.scripts.run(cancel, redisKey, "withdraw the waiting claim on", key, owner, this.channel);
		}
		catch (RuntimeException ex) {
			// a claim expires by itself within one lease, an admission within ADMISSION_MILLIS
			logger.warn("Could not withdraw the waiting claim on lock '" + key + "'", ex);
		}
	}

	private static IllegalMonitorStateException upgradeRefused(String key) {
		return new IllegalMonitorStateException("Cannot acquire the write lock '" + key
				+ "' while holding its read lock: upgrades are not supported, since two readers upgrading at once "
				+ "would wait for each other forever; release the read lock first (a write holder may take the "
				+ "read lock, a downgrade)");
	}

	/**
	 * Re-enters a hold of the calling thread.
	 * @return {@code false} if the hold was released meanwhile (by a handle closed on another thread): the
	 * caller acquires anew
	 */
	private boolean reenter(Hold hold, long leaseMillis) {
		// under the hold's monitor: a handle closed on another thread must not release it halfway through
		synchronized (hold) {
			if (hold.released) {
				return false;
			}
			if (hold.lostReason != null) {
				throw new LockLostException(hold.id.key(), hold.lostReason + "; it cannot be re-entered");
			}
			// while the last acquire or renewal still guarantees the lock for a third of the lease or more, a
			// re-entry needs no round trip; a longer lease, or one nearly run out, is extended in Redis
			if (leaseMillis <= hold.leaseMillis
					&& hold.confirmedUntil - System.nanoTime() > hold.renewalPeriodNanos()) {
				hold.count++;
				return true;
			}
			long sentAt = System.nanoTime();
			long result = tryAcquire(hold.id.type(), hold.id.key(), hold.redisKey, hold.owner, leaseMillis, true, 0,
					0).result();
			if (result == LockScripts.ACQUIRED) {
				hold.count++;
				hold.redisHolds++;
				long confirmed = sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
				if (confirmed - hold.confirmedUntil > 0) {
					hold.confirmedUntil = confirmed;
				}
				return true;
			}
		}
		String reason = "its lease of " + hold.leaseMillis + " ms ran out before it was re-entered";
		hold.markLost(reason);
		this.events.lost(hold);
		throw new LockLostException(hold.id.key(), reason);
	}

	private Hold onAcquired(HoldId id, String redisKey, String owner, long leaseMillis, boolean autoRenew,
			long sentAt, long token) {
		Hold hold = new Hold(id, redisKey, owner, leaseMillis, autoRenew, sentAt, token);
		this.holds.put(id, hold);
		this.events.acquired(hold);
		if (autoRenew) {
			sweepBy(hold.nextRenewal);
		}
		return hold;
	}

	/**
	 * Makes sure a renewal sweep runs by {@code due} ({@link System#nanoTime()}): schedules one only if
	 * none is scheduled early enough, so a steady stream of acquisitions schedules nothing.
	 */
	private void sweepBy(long due) {
		while (true) {
			long scheduled = this.nextSweep.get();
			if (scheduled - due <= 0) {
				return;
			}
			if (this.nextSweep.compareAndSet(scheduled, due)) {
				try {
					this.watchdog.schedule(this::sweep, Math.max(0, due - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
				catch (RejectedExecutionException ex) {
					// closed: nothing is renewed any more
				}
				return;
			}
		}
	}

	/**
	 * The watchdog: renews every held auto-renew lock that is due (a third of its lease after its last
	 * renewal), then schedules itself for the next one due.
	 */
	private void sweep() {
		this.nextSweep.set(Long.MAX_VALUE);
		long next = Long.MAX_VALUE;
		try {
			List<Hold> due = new ArrayList<>();
			for (Hold hold : this.holds.values()) {
				if (isRenewed(hold) && System.nanoTime() - hold.nextRenewal >= 0) {
					due.add(hold);
				}
			}
			renew(due);
			for (Hold hold : this.holds.values()) {
				if (isRenewed(hold) && hold.nextRenewal - next < 0) {
					next = hold.nextRenewal;
				}
			}
		}
		finally {
			if (next != Long.MAX_VALUE && !this.closed.get()) {
				sweepBy(next);
			}
		}
	}

	private static boolean isRenewed(Hold hold) {
		return hold.autoRenew && !hold.released && hold.lostReason == null;
	}

	@Override
	public void release(String key, LockType type) {
		Hold hold = this.holds.get(new HoldId(key, type, Thread.currentThread().getId()));
		if (hold == null) {
			throw new IllegalMonitorStateException(
					"Lock '" + key + "' (" + type + ") is not held by the current thread, so it cannot release it");
		}
		release(hold);
	}

	/**
	 * Releases one hold, on whichever thread: the lock's last hold is released in Redis, handed to the next
	 * local waiter, or, before its minimum hold ends, kept taken by nobody until then.
	 * @param hold the hold
	 * @throws IllegalMonitorStateException if all its holds were released already
	 * @throws LockLostException if the lock was lost before this release
	 * @throws DistributedLockException if Redis could not be reached; the lock ends with its lease
	 */
	void release(Hold hold) {
		String key = hold.id.key();
		synchronized (hold) {
			if (hold.released) {
				throw new IllegalMonitorStateException("Lock '" + key + "' (" + hold.id.type() + ") was released already");
			}
			if (--hold.count > 0) {
				// an inner release: the lock stays held, no round trip; report a loss this client knows of
				if (hold.isKnownLost()) {
					throw new LockLostException(key, hold.lostReason);
				}
				return;
			}
			hold.released = true;
			this.holds.remove(hold.id, hold);
		}
		long keepMillis = (hold.holdUntil == Long.MIN_VALUE) ? 0
				: TimeUnit.NANOSECONDS.toMillis(hold.holdUntil - System.nanoTime() + 999_999);
		// the next local waiter, if any, gets the lock in the same round trip as this release
		LocalQueue queue = hold.queue;
		Waiter next = (keepMillis <= 0 && queue != null && hold.queueHead && hold.id.type() == LockType.REENTRANT
				&& hold.lostReason == null) ? queue.reserveNext() : null;
		boolean handedOver = false;
		long result;
		try {
			long sentAt = System.nanoTime();
			if (keepMillis > 0) {
				result = this.scripts.run(keepScript(hold.id.type()), hold.redisKey, "release", key, hold.owner,
						Long.toString(keepMillis));
			}
			else {
				ScriptExecutor.Pair released = runRelease(hold, hold.redisHolds, next);
				result = released.result();
				if (next != null && result == LockScripts.HANDED_OVER) {
					handedOver = true;
					queue.handedOver(next, sentAt, released.token());
				}
			}
		}
		catch (DistributedLockException ex) {
			this.events.released(hold, false);
			throw new DistributedLockException("Could not release lock '" + key + "'; it ends with its lease of "
					+ hold.leaseMillis + " ms: " + ex.getMessage(), ex.getCause());
		}
		finally {
			leaveQueueOf(hold, handedOver, next);
		}
		if (result == LockScripts.NOT_HELD || hold.lostReason != null) {
			String reason = (hold.lostReason != null) ? hold.lostReason
					: "its lease of " + hold.leaseMillis + " ms ran out" + (hold.autoRenew ? "" : " (auto-renew was off)");
			hold.markLost(reason);
			this.events.released(hold, true);
			throw new LockLostException(key, reason);
		}
		this.events.released(hold, false);
	}

	/**
	 * Returns how many lock keys have local waiters right now; for tests and diagnostics.
	 * @return the number of keys with at least one waiting thread
	 */
	int waitingKeys() {
		return this.notifications.waitingKeys();
	}

	/**
	 * Returns how many threads of this client wait in the local queue of an exclusive lock, behind the one
	 * that holds it or acquires it in Redis; for tests and diagnostics.
	 * @param key the lock key
	 * @return the number of threads queued locally
	 */
	int queuedThreads(String key) {
		LocalQueue queue = this.queues.get(this.keyPrefix + key);
		return (queue != null) ? queue.waiting() : 0;
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

	/**
	 * Leaves the local queue after the Redis release: unless the lock was handed over, the next local waiter
	 * (the reserved one, if a hand-over did not happen) becomes the head and goes to Redis, finding it free.
	 */
	private void leaveQueueOf(Hold hold, boolean handedOver, @Nullable Waiter reserved) {
		LocalQueue queue = hold.queue;
		if (queue != null) {
			if (hold.queueHead && !handedOver) {
				queue.leave(reserved);
			}
			leaveQueue(hold.redisKey, queue);
		}
	}

	@Override
	public boolean isHeldByCurrentThread(String key, LockType type) {
		return this.holds.containsKey(new HoldId(key, type, Thread.currentThread().getId()));
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

	/**
	 * Releases every lock this client still holds, stops the watchdog and the subscription. Idempotent.
	 */
	@Override
	public void close() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		for (Hold hold : this.holds.values()) {
			if (hold.lostReason == null) {
				try {
					runRelease(hold, hold.redisHolds, null);
				}
				catch (RuntimeException ex) {
					logger.warn("Could not release lock '" + hold.id.key() + "' at shutdown; it ends with its lease",
							ex);
				}
				hold.markLost("its client was closed (application shutdown) and released it");
			}
		}
		this.notifications.close();
		this.watchdog.shutdownNow();
	}

	/**
	 * Does nothing: the client is ready when constructed.
	 */
	@Override
	public void start() {
	}

	/**
	 * Closes the client, as {@link #close()}; in an application context this runs before the Redis
	 * connection factory stops.
	 */
	@Override
	public void stop() {
		close();
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

	/**
	 * Renews the holds that are due: several in one pipeline, so a sweep costs one round trip however many
	 * locks are held (one round trip each took 10 s for 1,000 locks at 10 ms a round trip, far past 1 s leases).
	 */
	private void renew(List<Hold> due) {
		if (due.size() == 1) {
			renew(due.get(0));
			return;
		}
		if (due.isEmpty()) {
			return;
		}
		long sentAt = System.nanoTime();
		List<ScriptExecutor.Call> calls = new ArrayList<>(due.size());
		for (Hold hold : due) {
			calls.add(new ScriptExecutor.Call(renewScript(hold.id.type()), hold.redisKey, "renew", hold.id.key(),
					hold.owner, Long.toString(hold.leaseMillis)));
		}
		List<ScriptExecutor.Outcome> outcomes = this.scripts.runAll(calls);
		for (int i = 0; i < due.size(); i++) {
			ScriptExecutor.Outcome outcome = outcomes.get(i);
			if (outcome.failure() != null) {
				renewalFailed(due.get(i), outcome.failure());
			}
			else {
				renewed(due.get(i), outcome.result(), sentAt);
			}
		}
	}

	private void renew(Hold hold) {
		if (hold.released || hold.lostReason != null) {
			return;
		}
		long sentAt = System.nanoTime();
		try {
			renewed(hold, this.scripts.run(renewScript(hold.id.type()), hold.redisKey, "renew", hold.id.key(),
					hold.owner, Long.toString(hold.leaseMillis)), sentAt);
		}
		catch (RuntimeException ex) {
			renewalFailed(hold, ex);
		}
	}

	/** Records what a renewal script sent at {@code sentAt} returned: 1 renewed, else the lock is gone. */
	private void renewed(Hold hold, long result, long sentAt) {
		if (result == 1) {
			hold.confirmedUntil = sentAt + TimeUnit.MILLISECONDS.toNanos(hold.leaseMillis);
			hold.nextRenewal = sentAt + hold.renewalPeriodNanos();
		}
		else if (!hold.released) {
			hold.markLost("the watchdog found it gone at renewal (it expired or was deleted in Redis)");
			this.events.lost(hold);
		}
	}

	private void renewalFailed(Hold hold, RuntimeException ex) {
		this.events.renewalFailed(hold);
		if (System.nanoTime() - hold.confirmedUntil >= 0) {
			hold.markLost("it could not be renewed for longer than its lease of " + hold.leaseMillis + " ms ("
					+ ex.getMessage() + ")");
			this.events.lost(hold);
		}
		else {
			// try again after another third of what is left, not at once: Redis may take a while to return
			hold.nextRenewal = System.nanoTime() + Math.max(TimeUnit.MILLISECONDS.toNanos(1),
					(hold.confirmedUntil - System.nanoTime()) / 3);
			if (logger.isWarnEnabled()) {
				logger.warn("Could not renew lock '" + hold.id.key() + "'; retrying while its lease lasts", ex);
			}
		}
	}

	private ScriptExecutor.Pair tryAcquire(LockType type, String key, String redisKey, String owner,
			long leaseMillis, boolean reentry, long claimMillis, long waitId) {
		String lease = Long.toString(leaseMillis);
		String reentering = reentry ? "1" : "0";
		return switch (type) {
			case REENTRANT -> this.scripts.runPair(LockScripts.REENTRANT_ACQUIRE, redisKey, "acquire", key, owner,
					lease, reentering, Long.toString(claimMillis), Long.toString(waitId));
			case READ -> this.scripts.runPair(LockScripts.READ_ACQUIRE, redisKey, "acquire the read lock", key, owner,
					lease, reentering, Long.toString(claimMillis));
			case WRITE -> this.scripts.runPair(LockScripts.WRITE_ACQUIRE, redisKey, "acquire the write lock", key,
					owner, lease, reentering, Long.toString(claimMillis));
		};
	}

	/**
	 * Releases {@code holds} holds in Redis; the last release of a reentrant lock hands it to {@code next}, a
	 * reserved local waiter, if given (see {@code reentrant_release.lua}), and then returns its fencing token.
	 */
	private ScriptExecutor.Pair runRelease(Hold hold, int holds, @Nullable Waiter next) {
		String key = hold.id.key();
		return switch (hold.id.type()) {
			case REENTRANT -> (next == null)
					? this.scripts.runPair(LockScripts.REENTRANT_RELEASE, hold.redisKey, "release", key, hold.owner,
							this.channel, Integer.toString(holds))
					: this.scripts.runPair(LockScripts.REENTRANT_RELEASE, hold.redisKey, "release", key, hold.owner,
							this.channel, Integer.toString(holds), next.owner, Long.toString(next.leaseMillis));
			case READ -> new ScriptExecutor.Pair(this.scripts.run(LockScripts.READ_RELEASE, hold.redisKey, "release",
					key, hold.owner, this.channel, Integer.toString(holds)), 0);
			case WRITE -> new ScriptExecutor.Pair(this.scripts.run(LockScripts.WRITE_RELEASE, hold.redisKey,
					"release", key, hold.owner, this.channel, Integer.toString(holds), ADMISSION_MILLIS), 0);
		};
	}

	private static RedisScript<Long> keepScript(LockType type) {
		return switch (type) {
			case REENTRANT -> LockScripts.REENTRANT_KEEP;
			case READ -> LockScripts.READ_KEEP;
			case WRITE -> LockScripts.WRITE_KEEP;
		};
	}

	private static RedisScript<Long> renewScript(LockType type) {
		return switch (type) {
			case REENTRANT -> LockScripts.REENTRANT_RENEW;
			case READ -> LockScripts.READ_RENEW;
			case WRITE -> LockScripts.WRITE_RENEW;
		};
	}

	private void checkOpen() {
		if (this.closed.get()) {
			throw new DistributedLockException("This lock client is closed (the application is shutting down)");
		}
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 2;
		}
	}

}
