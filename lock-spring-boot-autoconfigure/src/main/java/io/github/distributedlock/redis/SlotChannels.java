package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;

import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The two channels of one hash slot that a {@link ShardedSubscription} listens on (the slot's release channel
 * and this client's grant channel in it), subscribed ({@code SSUBSCRIBE}) on the node that owns the slot and
 * unsubscribed ({@code SUNSUBSCRIBE}) from a node. Loaded only with Lettuce. Thread-safe.
 */
final class SlotChannels {

	/** Logs as {@link NotificationListener}, the category the documentation names for these messages. */
	private static final Log logger = LogFactory.getLog(NotificationListener.LOG_CATEGORY);

	private final NotificationChannels channels;

	private final String grantSuffix;

	/**
	 * Names the channels of a client.
	 * @param channels the channels, sharded
	 * @param clientId the client's id: its grant channels end with {@code :<client id>}
	 */
	SlotChannels(NotificationChannels channels, String clientId) {
		this.channels = channels;
		this.grantSuffix = ":" + clientId;
	}

	/**
	 * Subscribes to a slot's channels on its owner.
	 * @param node the connection to the owner
	 * @param owner the owner, for the log
	 * @param number the hash slot
	 * @return completes with {@code true} when subscribed, {@code false} when the node refused (such as MOVED:
	 * the slot has another owner than Lettuce knows); never fails
	 */
	CompletableFuture<Boolean> subscribe(StatefulRedisPubSubConnection<String, String> node, RedisClusterNode owner,
			int number) {
		String channel = this.channels.ofSlot(number);
		return node.async().ssubscribe(channel, channel + this.grantSuffix).toCompletableFuture()
			.handle((subscribed, failure) -> {
				if (failure != null) {
					logger.debug("Cannot subscribe to lock notifications of hash slot " + number + " on node "
							+ owner.getUri() + ": " + RedisFailures.describe(failure));
					return false;
				}
				return true;
			});
	}

	/**
	 * Unsubscribes from a slot's channels on a node, without waiting; a node that left the cluster is ignored.
	 * @param connection the cluster pub/sub connection
	 * @param nodeId the node
	 * @param number the hash slot
	 */
	void unsubscribe(StatefulRedisClusterPubSubConnection<String, String> connection, String nodeId, int number) {
		try {
			String channel = this.channels.ofSlot(number);
			// not waited for: a broken connection sends it when it is made again (before which Lettuce subscribes
			// again to what it had)
			connection.getConnection(nodeId).async().sunsubscribe(channel, channel + this.grantSuffix);
		}
		catch (RuntimeException ex) {
			// a node that left the cluster: its connection and subscriptions are gone
		}
	}

}
