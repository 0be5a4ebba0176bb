package io.github.distributedlock.redlock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockCapabilities;
import io.github.distributedlock.core.LockCapability;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.redis.EvictingRedisException;
import io.github.distributedlock.redis.EvictionCheck;
import io.github.distributedlock.redis.MissingRedisPermissionException;
import io.github.distributedlock.redis.RedisLockClient;
import io.lettuce.core.SslOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * The Redlock store ({@code distributed-lock.store=redlock}): reentrant locks held on a majority of N independent
 * Redis primaries, each reached with its own Lettuce client (redis.io, "Distributed Locks with Redis"), with
 * fencing tokens that strictly increase across successive holders (see {@code docs/redlock.md}). Acquisitions
 * and re-entries are started by {@link RedlockAcquirer}, renewal is {@link RedlockRenewer}, the release
 * {@link RedlockReleases}. Re-entries are counted on this client: a re-entry needs no new vote, only a validity
 * that has not ended. A minimum hold keeps the key taken, by nobody, on each node until it ends. Read/write locks
 * and semaphores are not supported ({@link #capabilities()});
 * a waiting acquisition is woken by the release notifications of the nodes ({@link RedlockNotifications}), with
 * a retry delay as fallback. In an application context its lifecycle stop is a graceful one
 * ({@link #stop()}); it closes when its bean is destroyed. Thread-safe.
 */
public final class RedlockLockClient implements LockClient, SmartLifecycle {

	private final String clientId = UUID.randomUUID().toString();

	private final RedlockSettings settings;

	private final RedlockCommands commands;

	private final RedlockNotifications notifications;

	private final ScheduledExecutorService scheduler;

	private final RedlockEvents events;

	private final RedlockReleases releases;

	private final RedlockAcquirer acquirer;

	private final Map<RedlockHold.HoldKey, RedlockHold> holds;

	private final AtomicLong asyncOwners = new AtomicLong();

	private volatile boolean closed;

	/** Counts the acquisitions under way, and waits for them and the holders at the stop. */
	private final RedlockShutdownGrace shutdownGrace;

	private volatile Duration shutdownTimeout = RedisLockClient.DEFAULT_SHUTDOWN_TIMEOUT;

	private volatile boolean running = true;

	/**
	 * Creates the client and starts opening its connections to the nodes, without waiting for them.
	 * @param settings the nodes and tuning
	 * @throws IllegalArgumentException if a node URL is malformed (the message names it, without password)
	 */
	public RedlockLockClient(RedlockSettings settings) {
		this(settings, null);
	}

	/**
	 * Creates the client with the TLS settings of its {@code rediss://} nodes, and starts opening its connections
	 * to the nodes, without waiting for them.
	 * @param settings the nodes and tuning
	 * @param ssl how every {@code rediss://} node is connected (trust and key material, protocols, ciphers), such
	 * as from a Spring Boot SSL bundle; {@code null} for Lettuce's defaults (the JVM's default trust store). A
	 * {@code redis://} node ignores it
	 * @throws IllegalArgumentException if a node URL is malformed (the message names it, without password)
	 */
	public RedlockLockClient(RedlockSettings settings, @Nullable SslOptions ssl) {
		this(settings, ssl, new ConcurrentHashMap<>());
	}

	private RedlockLockClient(RedlockSettings settings, @Nullable SslOptions ssl,
			Map<RedlockHold.HoldKey, RedlockHold> holds) {
		this.shutdownGrace = new RedlockShutdownGrace(holds.values());
		this.holds = holds;
		this.settings = settings;
		List<RedlockNode> nodes = RedlockNode.all(settings, ssl);
		this.commands = new RedlockCommands(nodes, settings);
		this.notifications = new RedlockNotifications(nodes, settings.keyPrefix());
		this.notifications.start(nodes.stream().<CompletableFuture<?>>map(RedlockNode::connect).toList());
		ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "redlock-" + this.clientId.substring(0, 8));
			thread.setDaemon(true);
			return thread;
		});
		executor.setRemoveOnCancelPolicy(true);
		this.scheduler = executor;
		this.events = new RedlockEvents(this.commands, executor);
		this.releases = new RedlockReleases(this.commands, this.events, this.holds);
		this.acquirer = new RedlockAcquirer(this.clientId, settings.keyPrefix(), this.commands, this.notifications,
				executor, this.events, new RedlockRenewer(this.commands, this.events, executor), this.releases,
				this.holds);
	}

	/**
	 * Checks the nodes as {@link #checkNodes(EvictionCheck)} does, failing on a node that may evict lock keys.
	 * @throws IllegalStateException if a node is the same server as another, a replica or a Cluster member; the
	 * message names it
	 * @throws MissingRedisPermissionException if a node's user lacks a permission the store needs
	 * @throws EvictingRedisException if a node may evict lock keys
	 */
	public void checkNodes() {
		checkNodes(new EvictionCheck(false));
	}

	/**
	 * Checks the nodes (their connections awaited together, then each node in turn, 5 s in all): see
	 * {@link RedlockNodeChecks}.
	 * @param eviction judges each node's eviction policy ({@code maxmemory}, {@code maxmemory-policy})
	 * @throws IllegalStateException if a node is the same server as another, a replica or a Cluster member; the
	 * message names it
	 * @throws MissingRedisPermissionException if a node's user lacks a permission the store needs; names the node,
	 * what it refused and the ACL rule
	 * @throws EvictingRedisException if a node may evict lock keys and the check does not allow it
	 */
	public void checkNodes(EvictionCheck eviction) {
		new RedlockNodeChecks(this.commands.nodes(), this.settings, this.notifications, eviction).check();
	}

	/**
	 * Asks every node at once for a {@code PING}, each bounded by the per-node timeout, and tells how each stands
	 * then; for the health contributor. A node whose connection is down is not waited for.
	 * @return one status per node, in the configured order
	 */
	public List<RedlockNodeStatus> pingNodes() {
		List<CompletableFuture<String>> pings = new ArrayList<>();
		for (RedlockNode node : this.commands.nodes()) {
			pings.add(node.ping());
		}
		try {
			CompletableFuture.allOf(pings.stream().map((ping) -> ping.exceptionally((failure) -> null))
				.toArray(CompletableFuture<?>[]::new)).get(this.settings.nodeTimeout().toMillis() + 100, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | java.util.concurrent.TimeoutException ex) {
			// each ping says how it went
		}
		List<RedlockNodeStatus> statuses = new ArrayList<>();
		for (int i = 0; i < pings.size(); i++) {
			RedlockNode node = this.commands.nodes().get(i);
			CompletableFuture<String> ping = pings.get(i);
			RedlockNodeStatus status = node.status();
			if (ping.isDone() && !ping.isCompletedExceptionally()) {
				statuses.add(new RedlockNodeStatus(node.name(), true, "up"));
			}
			else if (status.answering()) {
				// the state still counts one late answer as a slow node; the health does not
				statuses.add(new RedlockNodeStatus(node.name(), false,
						"not answering: no answer to PING within the node timeout"));
			}
			else {
				statuses.add(status);
			}
		}
		return statuses;
	}

	/**
	 * Counts the nodes whose release notifications this client hears now (its subscription is made and its
	 * connection open).
	 * @return from 0 to the number of nodes
	 */
	public int listeningNodes() {
		return this.notifications.listening();
	}

	/**
	 * Names the nodes for logs, as this client reaches them.
	 * @return {@code host:port} of each node in the configured order, followed by {@code " (TLS)"} for a
	 * {@code rediss://} one; never a user or password
	 */
	public List<String> describeNodes() {
		List<String> names = new ArrayList<>();
		for (RedlockNode node : this.commands.nodes()) {
			names.add(node.isTls() ? node.name() + " (TLS)" : node.name());
		}
		return names;
	}

	/**
	 * Returns the quorum: a majority of the configured nodes ({@link RedlockSettings#quorum()}).
	 * @return the number of nodes that must grant a lock
	 */
	public int getQuorum() {
		return this.settings.quorum();
	}

	/**
	 * Sets who is told what happens to this client's locks (meters, {@code LockLostEvent}s).
	 * @param observer the observer, {@link LockObserver#NONE} for nobody
	 */
	public void setLockObserver(LockObserver observer) {
		this.events.setObserver(observer);
	}

	/** The nodes, for the tests and the inspector. */
	List<RedlockNode> nodes() {
		return this.commands.nodes();
	}

	/** The settings, for the inspector. */
	RedlockSettings settings() {
		return this.settings;
	}

	/** The release notifications, for the tests. */
	RedlockNotifications notifications() {
		return this.notifications;
	}

	/**
	 * Sets who is told how each node answered each vote (per-node meters); tells it the nodes at once.
	 * @param observer the observer, {@link RedlockVoteObserver#NONE} for nobody
	 */
	public void setVoteObserver(RedlockVoteObserver observer) {
		this.commands.setVoteObserver(observer);
	}

	@Override
	public String getClientId() {
		return this.clientId;
	}

	/**
	 * {@inheritDoc} Reentrant locks, blocking and asynchronous, with minimum holds; not read/write locks or
	 * semaphores.
	 */
	@Override
	public LockCapabilities capabilities() {
		return LockCapabilities.of("redlock", LockCapability.ASYNC, LockCapability.MINIMUM_HOLD);
	}

	@Override
	public @Nullable LockHandle acquire(LockRequest request) throws InterruptedException {
		request.checkCallingThread();
		CompletableFuture<@Nullable LockHandle> pending = acquireFor(request, Thread.currentThread().getId());
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return pending.get();
				}
				catch (InterruptedException ex) {
					if (request.interruptible()) {
						pending.cancel(false);
						throw ex;
					}
					interrupted = true;
				}
				catch (ExecutionException ex) {
					if (ex.getCause() instanceof RuntimeException cause) {
						throw cause;
					}
					throw new DistributedLockException("Lock '" + request.key() + "' could not be acquired", ex);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public long newAsyncOwner() {
		return -this.asyncOwners.incrementAndGet();
	}

	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(LockRequest request) {
		try {
			return acquireFor(request, request.asyncOwner());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private CompletableFuture<@Nullable LockHandle> acquireFor(LockRequest request, long owner) {
		capabilities().check(request);
		if (this.closed) {
			throw new DistributedLockException("Lock '" + request.key() + "': the Redlock client is closed");
		}
		return this.shutdownGrace.track(this.acquirer.acquire(request, owner));
	}

	/**
	 * {@inheritDoc} The last hold acquired with {@link LockRequest#releasedByThread()} is released through its
	 * handle; without one, one of the thread's holds is released.
	 */
	@Override
	public void release(String key, LockType type) {
		RedlockHold hold = (type == LockType.REENTRANT)
				? this.holds.get(new RedlockHold.HoldKey(Thread.currentThread().getId(), key)) : null;
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + key + "' (" + type + ") is not held by thread "
					+ Thread.currentThread().getName() + " on this Redlock client");
		}
		RedlockHandle handle = hold.lastByThread();
		if (handle != null) {
			handle.close();
		}
		else {
			this.releases.release(hold);
		}
	}

	/**
	 * Sets how long {@link #stop()} waits for the owners that hold or are acquiring locks.
	 * @param shutdownTimeout the longest wait ({@code distributed-lock.shutdown-timeout}); zero does not wait
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout must not be null");
	}

	/**
	 * Marks the client running again after {@link #stop()}; it was never closed by a stop.
	 */
	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * Stops gracefully: waits up to the {@linkplain #setShutdownTimeout(Duration) shutdown timeout} for the owners
	 * that hold locks of this client to release them (renewed meanwhile) and for acquisitions under way to end
	 * ({@link RedlockShutdownGrace}). The client stays open: {@link #close()} (when its bean is destroyed) releases
	 * what is still held. Blocks its lifecycle phase, {@link RedisLockClient#PHASE}, while it waits.
	 */
	@Override
	public void stop() {
		this.shutdownGrace.await(this.shutdownTimeout);
		this.running = false;
	}

	/**
	 * Tells whether the client is running: from its creation until {@link #stop()} or {@link #close()}.
	 * @return {@code false} once stopped or closed
	 */
	@Override
	public boolean isRunning() {
		return this.running && !this.closed;
	}

	/**
	 * Returns {@link RedisLockClient#PHASE}: stopped after the web server and the task executors, as the Redis
	 * store's client is.
	 * @return the lifecycle phase
	 */
	@Override
	public int getPhase() {
		return RedisLockClient.PHASE;
	}

	@Override
	public boolean isHeldByCurrentThread(String key, LockType type) {
		return type == LockType.REENTRANT
				&& this.holds.containsKey(new RedlockHold.HoldKey(Thread.currentThread().getId(), key));
	}

	@Override
	public List<HeldLock> heldLocks() {
		List<HeldLock> held = new ArrayList<>();
		long now = System.nanoTime();
		Instant wallNow = Instant.now();
		for (RedlockHold hold : this.holds.values()) {
			held.add(hold.describe(now, wallNow));
		}
		return held;
	}

	@Override
	public void close() {
		this.closed = true;
		List<CompletableFuture<?>> releases = new ArrayList<>();
		for (RedlockHold hold : this.holds.values()) {
			releases.add(this.events.lost(hold, "the lock client was closed", true));
		}
		try {
			CompletableFuture.allOf(releases.toArray(new CompletableFuture<?>[0]))
				.get(this.settings.nodeTimeout().toMillis() * 2 + 100, TimeUnit.MILLISECONDS);
		}
		catch (Exception ex) {
			// the locks end with their leases
		}
		this.scheduler.shutdownNow();
		this.commands.nodes().forEach(RedlockNode::close);
	}

}
