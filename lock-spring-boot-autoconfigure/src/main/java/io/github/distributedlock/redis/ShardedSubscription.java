package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The sharded subscriptions of one client ({@link NotificationMode#SHARDED}): while a local waiter waits on a lock
 * key, the client is subscribed ({@code SSUBSCRIBE}) to the release and grant channels of the key's hash slot on
 * the primary that owns the slot, and it drops them ({@code SUNSUBSCRIBE}) once no waiter has waited there for
 * {@link #LINGER_NANOS}. All of them go through one Lettuce cluster pub/sub connection, which keeps one connection
 * per node it subscribes on: a client waiting on many keys has at most one connection per primary and two
 * channels per slot, never one per key.
 * <p>
 * Slots move (a resharding, a failover): Redis then ends the subscriptions of a moved slot with an
 * {@code sunsubscribe} message, and a killed primary's connection breaks. Either way the slot's waiters try again
 * at once (a release meanwhile is not heard), and the subscription is made again on the slot's owner after a
 * refresh of Lettuce's view of the cluster; a check every second finds what the messages did not tell. A slot's
 * waiters also try again when its subscription is made: a release between a waiter's failed try and the
 * subscription was not heard. Loaded only with Lettuce. Thread-safe; the subscriptions are made on the scheduler.
 */
final class ShardedSubscription implements NotificationSubscription {

	/** Logs as {@link NotificationListener}, the category the documentation names for these messages. */
	private static final Log logger = LogFactory.getLog(NotificationListener.LOG_CATEGORY);

	/** How long a slot's subscription outlives its last waiter: a lock waited on again soon is not resubscribed. */
	static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(5);

	/** How long a check's subscriptions may take. */
	private static final long REPLY_MILLIS = 5000;

	private static final CompletableFuture<Boolean> UP_TO_DATE = CompletableFuture.completedFuture(true);

	private static final CompletableFuture<Boolean> NEEDS_REFRESH = CompletableFuture.completedFuture(false);

	/** What the subscriptions tell their client. */
	interface Listener {

		/**
		 * A message came; on Lettuce's I/O thread, must not block.
		 * @param channel the channel
		 * @param body the message
		 */
		void onMessage(String channel, String body);

		/**
		 * A slot's subscription was made, or lost: its waiters should try again now. Must not block.
		 * @param slot the hash slot
		 */
		void slotChanged(int slot);

	}

	/** One slot's subscription. {@link #waiters} and {@link #idleSince} change under the map's compute. */
	private static final class Slot {

		int waiters;

		long idleSince;

		/** The node subscribed on, or {@code null} while not subscribed (not yet, or lost). */
		volatile @Nullable String nodeId;

		/** Whether the subscription was lost and is not made again yet. */
		volatile boolean lost;

	}

	private final SlotChannels slotChannels;

	private final Listener listener;

	private final ScheduledExecutorService scheduler;

	private final ConcurrentHashMap<Integer, Slot> slots = new ConcurrentHashMap<>();

	private final AtomicBoolean queued = new AtomicBoolean();

	private final ShardedConnection connection;

	private volatile boolean closed;

	/**
	 * Starts checking the subscriptions every second on the scheduler; subscribes nothing before a waiter comes.
	 * @param connectionFactory the Lettuce factory of a Redis Cluster
	 * @param channels the channels, sharded
	 * @param clientId the client's id: its grant channels end with {@code :<client id>}
	 * @param listener told of messages and of subscriptions made or lost
	 * @param scheduler runs the subscriptions; owned by the caller
	 */
	ShardedSubscription(LettuceConnectionFactory connectionFactory, NotificationChannels channels, String clientId,
			Listener listener, ScheduledExecutorService scheduler) {
		this.connection = new ShardedConnection(connectionFactory, new Messages());
		this.slotChannels = new SlotChannels(channels, clientId);
		this.listener = listener;
		this.scheduler = scheduler;
		scheduler.scheduleWithFixedDelay(this::reconcile, 1, 1, TimeUnit.SECONDS);
	}

	/** Counts a waiter of the key, and subscribes to the key's slot if it is not subscribed. */
	@Override
	public void waiterRegistered(String redisKey) {
		Slot slot = this.slots.compute(ClusterSlots.of(redisKey), (number, known) -> {
			Slot counted = (known != null) ? known : new Slot();
			counted.waiters++;
			return counted;
		});
		if (slot.nodeId == null) {
			requestReconcile();
		}
	}

	/** Counts a waiter of the key out: the slot's subscription is dropped after {@link #LINGER_NANOS} without one. */
	@Override
	public void waiterUnregistered(String redisKey) {
		this.slots.computeIfPresent(ClusterSlots.of(redisKey), (number, slot) -> {
			if (--slot.waiters == 0) {
				slot.idleSince = System.nanoTime();
			}
			return slot;
		});
	}

	/** Connected, and no slot's subscription is lost. */
	@Override
	public boolean isListening() {
		return this.connection.isConnected() && this.slots.values().stream().noneMatch((slot) -> slot.lost);
	}

	private void requestReconcile() {
		if (!this.closed && this.queued.compareAndSet(false, true)) {
			try {
				this.scheduler.execute(this::reconcile);
			}
			catch (RejectedExecutionException ex) {
				// closed meanwhile
			}
		}
	}

	/**
	 * Makes each slot's subscription match its waiters and its owner now, on the scheduler; if Lettuce's view of
	 * the cluster is out of date, refreshes it and tries once more.
	 */
	private void reconcile() {
		this.queued.set(false);
		StatefulRedisClusterPubSubConnection<String, String> connection = this.connection.connect();
		if (connection != null && !reconcileSlots(connection) && this.connection.refreshTopology()) {
			reconcileSlots(connection);
		}
	}

	/**
	 * Returns {@code false} when some slot needs a fresher view of the cluster. The subscriptions are sent at once,
	 * not one round trip after the other, then waited for together.
	 */
	private boolean reconcileSlots(StatefulRedisClusterPubSubConnection<String, String> connection) {
		List<CompletableFuture<Boolean>> checks = new ArrayList<>();
		for (Map.Entry<Integer, Slot> entry : this.slots.entrySet()) {
			if (this.closed) {
				return true;
			}
			try {
				checks.add(reconcile(connection, entry.getKey(), entry.getValue()));
			}
			catch (RuntimeException ex) {
				// such as a node that left Lettuce's view: the next check, after a refresh, finds the owner
				logger.debug("Cannot check the lock notifications of hash slot " + entry.getKey() + ": "
						+ RedisFailures.describe(ex));
				checks.add(NEEDS_REFRESH);
			}
		}
		boolean upToDate = true;
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REPLY_MILLIS);
		for (CompletableFuture<Boolean> check : checks) {
			try {
				upToDate &= check.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return true;
			}
			catch (ExecutionException | TimeoutException ex) {
				upToDate = false;
			}
		}
		return upToDate;
	}

	/** Completes with {@code false} when Lettuce's view of the cluster is to be refreshed. */
	private CompletableFuture<Boolean> reconcile(StatefulRedisClusterPubSubConnection<String, String> connection,
			int number, Slot slot) {
		String subscribedOn = slot.nodeId;
		long now = System.nanoTime();
		boolean dropped = this.slots.computeIfPresent(number,
				(key, idle) -> (idle.waiters == 0 && now - idle.idleSince > LINGER_NANOS) ? null : idle) == null;
		if (dropped) {
			if (subscribedOn != null) {
				this.slotChannels.unsubscribe(connection, subscribedOn, number);
			}
			return UP_TO_DATE;
		}
		RedisClusterNode owner = connection.getPartitions().getMasterBySlot(number);
		if (subscribedOn != null && owner != null && subscribedOn.equals(owner.getNodeId())
				&& connection.getConnection(subscribedOn).isOpen()) {
			return UP_TO_DATE;
		}
		if (subscribedOn != null) {
			// moved, or its node's connection broke: a release meanwhile was not heard
			slot.nodeId = null;
			slot.lost = true;
			this.slotChannels.unsubscribe(connection, subscribedOn, number);
			this.listener.slotChanged(number);
		}
		if (owner == null) {
			return NEEDS_REFRESH;
		}
		StatefulRedisPubSubConnection<String, String> node = connection.getConnection(owner.getNodeId());
		if (!node.isOpen()) {
			return NEEDS_REFRESH;
		}
		return this.slotChannels.subscribe(node, owner, number).thenApply((subscribed) -> {
			if (subscribed) {
				slot.nodeId = owner.getNodeId();
				slot.lost = false;
				this.listener.slotChanged(number);
			}
			return subscribed;
		});
	}

	/** Closes the connection, which ends every subscription; nothing is subscribed again. */
	@Override
	public void close() {
		this.closed = true;
		this.connection.close();
	}

	/** The messages of every node connection, on Lettuce's I/O threads. */
	private final class Messages extends RedisClusterPubSubAdapter<String, String> {

		@Override
		public void smessage(RedisClusterNode node, String channel, String message) {
			ShardedSubscription.this.listener.onMessage(channel, message);
		}

		@Override
		public void sunsubscribed(RedisClusterNode node, String channel, long count) {
			int number = ClusterSlots.of(channel);
			Slot slot = ShardedSubscription.this.slots.get(number);
			// only the node it is subscribed on now: not this client's own unsubscribe from a former owner
			if (slot != null && node != null && node.getNodeId().equals(slot.nodeId)) {
				slot.nodeId = null;
				slot.lost = true;
				ShardedSubscription.this.listener.slotChanged(number);
				requestReconcile();
			}
		}

	}

}
