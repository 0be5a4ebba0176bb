package io.github.distributedlock.redis;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The startup check's sharded subscription ({@link RedisAccessProbe} in {@link NotificationMode#SHARDED} mode):
 * subscribes with {@code SSUBSCRIBE} to channels of one slot, on the primary that owns it, and closes. Loaded only
 * with Lettuce. Thread-safe (stateless).
 */
final class ShardedSubscribeCheck {

	private static final long REPLY_MILLIS = 5000;

	private ShardedSubscribeCheck() {
	}

	/**
	 * Subscribes to the channels once and unsubscribes.
	 * @param connectionFactory the Lettuce factory of a Redis Cluster
	 * @param channels channels of one hash slot
	 * @throws RuntimeException what Redis or Lettuce refused
	 */
	static void subscribeOnce(LettuceConnectionFactory connectionFactory, String... channels) {
		RedisClusterClient client = (RedisClusterClient) connectionFactory.getRequiredNativeClient();
		try (StatefulRedisClusterPubSubConnection<String, String> connection = client.connectPubSub(StringCodec.UTF8)) {
			RedisClusterNode owner = connection.getPartitions().getMasterBySlot(ClusterSlots.of(channels[0]));
			if (owner == null) {
				throw new IllegalStateException("No primary of the cluster owns hash slot " + ClusterSlots.of(channels[0]));
			}
			connection.getConnection(owner.getNodeId()).async().ssubscribe(channels).get(REPLY_MILLIS,
					TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
		catch (java.util.concurrent.ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex.getCause());
		}
		catch (java.util.concurrent.TimeoutException ex) {
			throw new IllegalStateException("No reply to SSUBSCRIBE within " + REPLY_MILLIS + " ms", ex);
		}
	}

}
