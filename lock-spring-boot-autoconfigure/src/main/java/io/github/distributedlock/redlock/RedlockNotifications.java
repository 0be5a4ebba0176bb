package io.github.distributedlock.redlock;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The release notifications of one Redlock client: one publish/subscribe connection per node, subscribed to the
 * release channel ({@code <key prefix>__released}), shared by every waiting acquisition of the client (not one
 * per key). A message is the Redis key of a lock that a node freed while someone waited for it
 * ({@code release.lua}), from whichever node it comes. A message wakes the longest-registered acquisition of this
 * client that waits for that key between two rounds, and tells the ones it passes, which are voting, to vote
 * again at once after their round: one waiter per message, not all of them, so the client's threads do not all
 * vote at once and split the nodes among themselves (the others wait for the next release). Delivery is at most
 * once (a message published while a connection is down is lost) and a message may come more than once (one per
 * node, so a release wakes up to one waiter per node): a waiter takes a message only as a reason to vote again,
 * and its retry delay stays the fallback. A node whose subscription could not be made is tried again when an acquisition starts to
 * wait, at most once per second. Thread-safe.
 */
final class RedlockNotifications {

	private static final Log logger = LogFactory.getLog(RedlockNotifications.class);

	/** How often a failed subscription is tried again, at most. */
	private static final long RESUBSCRIBE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final List<RedlockNode> nodes;

	private final String channel;

	/** Per node, its subscription: completes with the connection once subscribed, or fails. */
	private final AtomicReferenceArray<@Nullable CompletableFuture<StatefulRedisPubSubConnection<String, String>>> subscriptions;

	/** Per node, the {@link System#nanoTime()} of its last subscription attempt. */
	private final AtomicLongArray lastTries;

	/** The waiters of each Redis key, longest registered first. */
	private final Map<String, Queue<BooleanSupplier>> waiters = new ConcurrentHashMap<>();

	private final RedisPubSubAdapter<String, String> listener = new RedisPubSubAdapter<>() {

		@Override
		public void message(String channel, String message) {
			released(message);
		}

	};

	/**
	 * Creates the notifications of a client; {@link #start()} subscribes.
	 * @param nodes the nodes
	 * @param keyPrefix the key prefix, which the channel starts with
	 */
	RedlockNotifications(List<RedlockNode> nodes, String keyPrefix) {
		this.nodes = List.copyOf(nodes);
		this.channel = RedlockKeys.channel(keyPrefix);
		this.subscriptions = new AtomicReferenceArray<>(nodes.size());
		this.lastTries = new AtomicLongArray(nodes.size());
	}

	/**
	 * Starts subscribing on every node, without waiting: on each once its command connection opened, so that the
	 * startup does not open twice as many connections at once (each handshake is bounded by the per-node
	 * timeout); on a node whose connection failed, when an acquisition first waits.
	 * @param connections per node, its command connection's opening
	 */
	void start(List<CompletableFuture<?>> connections) {
		for (int i = 0; i < this.nodes.size(); i++) {
			int node = i;
			long now = System.nanoTime();
			this.lastTries.set(node, now);
			CompletableFuture<StatefulRedisPubSubConnection<String, String>> waiting = new CompletableFuture<>();
			this.subscriptions.set(node, waiting);
			connections.get(i).whenComplete((connection, failure) -> {
				if (failure == null) {
					// the placeholder tells the startup check how the first subscription went
					subscribe(node, now, false).whenComplete((subscribed, refused) -> {
						if (refused != null) {
							waiting.completeExceptionally(refused);
						}
						else {
							waiting.complete(subscribed);
						}
					});
				}
				else {
					// the startup check tells that the node cannot be reached
					waiting.completeExceptionally(failure);
				}
			});
		}
	}

	/**
	 * Registers a waiter of a key until the returned registration is closed, and tries again the subscriptions
	 * that failed (at most once per second each).
	 * @param redisKey the lock's Redis key, {@code <prefix><key>}
	 * @param offer offered, on a Redis client's I/O thread, a release of the key: answers whether it woke the
	 * waiter, which was waiting between two rounds (then no later waiter is offered this message); must be quick
	 * and must not block
	 * @return closes the registration; closing it again does nothing
	 */
	Runnable register(String redisKey, BooleanSupplier offer) {
		resubscribeFailed();
		// compute, not computeIfAbsent + add: the last waiter's removal may drop the queue in between
		this.waiters.compute(redisKey, (key, queue) -> {
			Queue<BooleanSupplier> current = (queue != null) ? queue : new ConcurrentLinkedQueue<>();
			current.add(offer);
			return current;
		});
		return () -> this.waiters.computeIfPresent(redisKey, (key, queue) -> {
			queue.remove(offer);
			return queue.isEmpty() ? null : queue;
		});
	}

	/**
	 * Counts the nodes whose subscription is made and whose connection is open now.
	 * @return how many nodes' release notifications this client hears
	 */
	int listening() {
		int count = 0;
		for (int i = 0; i < this.nodes.size(); i++) {
			CompletableFuture<StatefulRedisPubSubConnection<String, String>> subscription = this.subscriptions.get(i);
			if (subscription != null && subscription.isDone() && !subscription.isCompletedExceptionally()
					&& subscription.join().isOpen()) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Returns a node's subscription as it stands: for the startup check, which reports a channel permission the
	 * node's user lacks.
	 * @param node the node's index
	 * @return completes once subscribed, or fails with why not (a connection failure, or Redis's refusal)
	 */
	CompletableFuture<?> subscription(int node) {
		CompletableFuture<StatefulRedisPubSubConnection<String, String>> subscription = this.subscriptions.get(node);
		return (subscription != null) ? subscription
				: CompletableFuture.failedFuture(new IllegalStateException("not subscribing: start() was not called"));
	}

	private void released(String redisKey) {
		Queue<BooleanSupplier> queue = this.waiters.get(redisKey);
		if (queue != null) {
			for (BooleanSupplier offer : queue) {
				if (offer.getAsBoolean()) {
					return;
				}
			}
		}
	}

	private void resubscribeFailed() {
		long now = System.nanoTime();
		for (int i = 0; i < this.nodes.size(); i++) {
			CompletableFuture<StatefulRedisPubSubConnection<String, String>> subscription = this.subscriptions.get(i);
			long last = this.lastTries.get(i);
			if (subscription != null && subscription.isCompletedExceptionally() && now - last >= RESUBSCRIBE_NANOS
					&& this.lastTries.compareAndSet(i, last, now)) {
				subscribe(i, now, true);
			}
		}
	}

	private CompletableFuture<StatefulRedisPubSubConnection<String, String>> subscribe(int node, long now,
			boolean again) {
		this.lastTries.set(node, now);
		RedlockNode target = this.nodes.get(node);
		CompletableFuture<StatefulRedisPubSubConnection<String, String>> subscription = target.connectPubSub()
			.thenCompose((connection) -> {
				connection.addListener(this.listener);
				// Lettuce subscribes a reconnected connection again by itself
				return connection.async()
					.subscribe(this.channel)
					.toCompletableFuture()
					.whenComplete((done, failure) -> {
						if (failure != null) {
							connection.closeAsync();
						}
					})
					.thenApply((done) -> connection);
			});
		this.subscriptions.set(node, subscription);
		subscription.whenComplete((connection, failure) -> {
			if (failure != null && again) {
				logger.debug("Still cannot subscribe to the release channel of " + target + ": " + failure);
			}
			else if (failure != null) {
				logger.warn("Cannot subscribe to the release channel '" + this.channel + "' of " + target
						+ " (waiters of locks there vote again after their retry delay instead): " + failure);
			}
		});
		return subscription;
	}

}
