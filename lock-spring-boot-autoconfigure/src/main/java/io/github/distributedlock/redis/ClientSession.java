package io.github.distributedlock.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.redis.Hold.HoldId;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * One run of a {@link RedisLockClient}, under one client id: its holds, local queues, threads, release
 * notifications, watchdog, the acquire and release sides, and the shutdown grace, how they are wired, and the order
 * in which closing stops them. The client is their facade; a restart of the client makes a new session, so nothing
 * of an earlier run can be taken for the new one's. Thread-safe.
 */
final class ClientSession {

	/** How long closing waits for the waits in Redis to withdraw (milliseconds): a round trip or two. */
	private static final long WAITS_END_MILLIS = 2000;

	/** The client's id in this run (see {@link RedisLockClient#getClientId()}). */
	final String clientId;

	final ConcurrentHashMap<HoldId, Hold> holds = new ConcurrentHashMap<>();

	final AtomicBoolean closed = new AtomicBoolean();

	/** What the observer and the log are told of acquisitions, releases and losses. */
	final HoldEvents events = new HoldEvents();

	/** The acquisitions under way (see {@link HoldAcquirer#inFlight}). */
	final ConcurrentHashMap<HoldId, Acquisition> acquisitions = new ConcurrentHashMap<>();

	final ShutdownGrace shutdownGrace = new ShutdownGrace(this.holds.values(), this.acquisitions.values());

	final ClientThreads threads;

	final LocalQueues queues;

	final NotificationListener notifications;

	final LeaseWatchdog watchdog;

	final HoldReleaser releaser;

	final HoldAcquirer acquirer;

	/** Releases at shutdown what holders did not release. */
	private final ShutdownReleaser shutdownReleases;

	/** The waits in Redis, ended first when the client closes. */
	final WaitingAcquirer waiting;

	/** Replica sync, or {@code null} when off. */
	final @Nullable ReplicaSync replicaSync;

	/**
	 * Makes the parts of a client and subscribes to release notifications (or tries to: an unreachable Redis is
	 * logged, not thrown).
	 * @param connectionFactory the Redis connections
	 * @param keyPrefix prefix of every Redis key the client writes
	 * @param clientId the client's id
	 * @param channels the release channels, in the client's notification mode
	 * @param replicaSync replica sync, or {@code null} when off
	 */
	ClientSession(RedisConnectionFactory connectionFactory, String keyPrefix, String clientId, NotificationChannels channels,
			@Nullable ReplicaSync replicaSync) {
		this.clientId = clientId;
		this.replicaSync = replicaSync;
		ScriptExecutor scripts = new ScriptExecutor(connectionFactory);
		LockKinds kinds = new LockKinds(new KindScripts(scripts, channels, new WithdrawalSender(scripts)));
		String threadName = "distributed-lock-" + clientId.substring(0, 8);
		this.threads = new ClientThreads(threadName, scripts.isBlocking());
		this.queues = new LocalQueues(this.threads.timer);
		ConnectionBreaks breaks = new ConnectionBreaks();
		this.notifications = new NotificationListener(connectionFactory, keyPrefix, channels, clientId,
				this.threads.subscriber, breaks);
		this.watchdog = new LeaseWatchdog(threadName, new LeaseRenewalScripts(scripts), this.events, this.threads.timer);
		ServerLife serverLife = new ServerLife(scripts, keyPrefix, breaks, this.watchdog::runInBackground,
				ScriptTransport.isLettuce(connectionFactory) && !ScriptTransport.isLettuceCluster(connectionFactory));
		this.releaser = new HoldReleaser(this, new ReleaseReplayCheck(breaks, serverLife));
		this.shutdownReleases = new ShutdownReleaser(this.holds.values(), this.events);
		this.watchdog.setOrphanHandler(this.releaser::releaseOrphan);
		this.events.setBackground(this.watchdog::runInBackground);
		this.waiting = new WaitingAcquirer(this.notifications, this.watchdog::runInBackground,
				this.threads.timer, this.threads.resume, this.closed);
		this.acquirer = new HoldAcquirer(this, keyPrefix, kinds, serverLife);
		serverLife.start();
	}

	/**
	 * Closes the client, once: releases what is still held (with a warning each), then stops renewing,
	 * listening and the threads.
	 */
	void close() {
		if (!this.closed.compareAndSet(false, true)) {
			return;
		}
		// first the waits, while Redis can still be reached: a release must not grant a lock to a claim of a
		// client that is gone
		this.waiting.cancelAll(WAITS_END_MILLIS);
		this.shutdownReleases.releaseAll();
		this.watchdog.close();
		this.notifications.close();
		this.threads.close();
		if (this.replicaSync != null) {
			this.replicaSync.close();
		}
	}

	/**
	 * Fails an operation of a closed client.
	 * @throws DistributedLockException once closed
	 */
	void checkOpen() {
		if (this.closed.get()) {
			throw Acquisition.closedClient();
		}
	}

	/**
	 * Returns what is known of the holds now (see {@link RedisLockClient#heldLocks()}).
	 * @return a snapshot, one entry per hold
	 */
	List<HeldLock> heldLocks() {
		List<HeldLock> held = new ArrayList<>(this.holds.size());
		long nanoNow = System.nanoTime();
		Instant now = Instant.now();
		for (Hold hold : this.holds.values()) {
			held.add(hold.snapshot(now, nanoNow));
		}
		return held;
	}

	/**
	 * Returns how many owners wait in the local queue of an exclusive lock.
	 * @param redisKey the lock's Redis key
	 * @param type the lock type
	 * @return the number of owners queued locally
	 */
	int queuedOwners(String redisKey, LockType type) {
		LocalQueue queue = this.queues.get(redisKey, type);
		return (queue != null) ? queue.waiting() : 0;
	}

}
