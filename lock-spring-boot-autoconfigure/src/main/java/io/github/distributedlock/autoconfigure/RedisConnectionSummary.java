package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * What the startup log says about the application's {@link RedisConnectionFactory}: where it connects and
 * how long it waits for a command. Reads the factory's configuration only; never connects. Lettuce factories
 * are described in full; of others only the type is known.
 *
 * @param target where the factory connects, such as {@code localhost:6379},
 * {@code sentinel master 'mymaster' via h1:26379, h2:26379} or {@code cluster h1:7000, h2:7001}
 * @param commandTimeout how long a command may go unanswered before it fails, or {@code null} if unknown
 */
record RedisConnectionSummary(String target, @Nullable Duration commandTimeout) {

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
		return new RedisConnectionSummary(connectionFactory.getClass().getSimpleName(), null);
	}

	private static String target(LettuceConnectionFactory lettuce) {
		if (lettuce.isClusterAware() && lettuce.getClusterConfiguration() != null) {
			return "cluster " + nodes(lettuce.getClusterConfiguration().getClusterNodes());
		}
		if (lettuce.isRedisSentinelAware() && lettuce.getSentinelConfiguration() != null) {
			var sentinel = lettuce.getSentinelConfiguration();
			String master = (sentinel.getMaster() != null) ? sentinel.getMaster().getName() : "?";
			return "sentinel master '" + master + "' via " + nodes(sentinel.getSentinels());
		}
		return lettuce.getHostName() + ":" + lettuce.getPort();
	}

	private static String nodes(Iterable<RedisNode> nodes) {
		return StreamSupport.stream(nodes.spliterator(), false)
			.map(RedisNode::asString)
			.collect(Collectors.joining(", "));
	}

}
