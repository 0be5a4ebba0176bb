package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * What the startup log says about the application's {@link RedisConnectionFactory}: where it connects and
 * how long it waits for a command. Reads the factory's configuration only; never connects. Lettuce and Jedis
 * factories are described in full; of others only the type is known.
 *
 * @param target where the factory connects, such as {@code localhost:6379},
 * {@code sentinel master 'mymaster' via h1:26379, h2:26379} or {@code cluster h1:7000, h2:7001}
 * @param commandTimeout how long a command may go unanswered before it fails, or {@code null} if unknown
 */
record RedisConnectionSummary(String target, @Nullable Duration commandTimeout) {

	private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.Jedis",
			RedisConnectionSummary.class.getClassLoader());

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedisConnectionSummary.class.getClassLoader());

	/**
	 * Summarises a connection factory.
	 * @param connectionFactory the factory, or {@code null} when the application has none
	 * @return the summary
	 */
	static RedisConnectionSummary of(@Nullable RedisConnectionFactory connectionFactory) {
		if (connectionFactory == null) {
			return new RedisConnectionSummary("no RedisConnectionFactory", null);
		}
		if (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce) {
			return new RedisConnectionSummary(target(lettuce), lettuce.getClientConfiguration().getCommandTimeout());
		}
		if (JEDIS_PRESENT && connectionFactory instanceof JedisConnectionFactory jedis) {
			return new RedisConnectionSummary(
					target(jedis.getClusterConfiguration(), jedis.getSentinelConfiguration(),
							jedis.getHostName() + ":" + jedis.getPort()),
					jedis.getClientConfiguration().getReadTimeout());
		}
		return new RedisConnectionSummary(connectionFactory.getClass().getSimpleName(), null);
	}

	private static String target(LettuceConnectionFactory lettuce) {
		return target(lettuce.isClusterAware() ? lettuce.getClusterConfiguration() : null,
				lettuce.isRedisSentinelAware() ? lettuce.getSentinelConfiguration() : null,
				lettuce.getHostName() + ":" + lettuce.getPort());
	}

	private static String target(@Nullable RedisClusterConfiguration cluster,
			@Nullable RedisSentinelConfiguration sentinel, String standalone) {
		if (cluster != null) {
			return "cluster " + nodes(cluster.getClusterNodes());
		}
		if (sentinel != null) {
			String master = (sentinel.getMaster() != null) ? sentinel.getMaster().getName() : "?";
			return "sentinel master '" + master + "' via " + nodes(sentinel.getSentinels());
		}
		return standalone;
	}

	private static String nodes(Iterable<RedisNode> nodes) {
		return StreamSupport.stream(nodes.spliterator(), false)
			.map(RedisNode::asString)
			.collect(Collectors.joining(", "));
	}

}
