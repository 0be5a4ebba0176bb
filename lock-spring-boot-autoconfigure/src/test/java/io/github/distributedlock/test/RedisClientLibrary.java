package io.github.distributedlock.test;

import java.time.Duration;
import java.util.List;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis client libraries Spring Data Redis supports, and the one place tests make a connection factory
 * of each: a lock test class runs again on the other library by overriding which one it connects with.
 */
public enum RedisClientLibrary {

	/** Lettuce, what the starter brings: one shared, thread-safe connection. */
	LETTUCE {
		@Override
		public RedisConnectionFactory connectTo(String host, int port) {
			return lettuce(host, port);
		}

		@Override
		public RedisConnectionFactory connectToCluster(List<String> nodes) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(nodes),
					LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
			factory.afterPropertiesSet();
			factory.start();
			return factory;
		}
	},

	/**
	 * Jedis, with the connection pool a Spring Boot application gets by default
	 * ({@code spring.data.redis.jedis.pool}: at most 8 connections, waiting for a free one without limit).
	 */
	JEDIS {
		@Override
		public RedisConnectionFactory connectTo(String host, int port) {
			JedisClientConfiguration client = JedisClientConfiguration.builder()
				.connectTimeout(COMMAND_TIMEOUT)
				.readTimeout(COMMAND_TIMEOUT)
				.usePooling()
				.build();
			JedisConnectionFactory factory = new JedisConnectionFactory(new RedisStandaloneConfiguration(host, port),
					client);
			factory.afterPropertiesSet();
			factory.start();
			return factory;
		}

		@Override
		public RedisConnectionFactory connectToCluster(List<String> nodes) {
			JedisConnectionFactory factory = new JedisConnectionFactory(new RedisClusterConfiguration(nodes),
					JedisClientConfiguration.builder()
						.connectTimeout(COMMAND_TIMEOUT)
						.readTimeout(COMMAND_TIMEOUT)
						.usePooling()
						.build());
			factory.afterPropertiesSet();
			factory.start();
			return factory;
		}
	};

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	/**
	 * Creates a started connection factory of this library on a server, with a 2 s command timeout.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the factory; the caller {@linkplain #destroy(RedisConnectionFactory) destroys} it
	 */
	public abstract RedisConnectionFactory connectTo(String host, int port);

	/**
	 * Creates a started connection factory of this library on a Redis Cluster, with a 2 s command timeout.
	 * @param nodes {@code host:port} of some of its nodes
	 * @return the factory; the caller {@linkplain #destroy(RedisConnectionFactory) destroys} it
	 */
	public abstract RedisConnectionFactory connectToCluster(List<String> nodes);

	/**
	 * Creates a started Lettuce connection factory on a server, with a 2 s command timeout.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the factory; the caller destroys it
	 */
	public static LettuceConnectionFactory lettuce(String host, int port) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Closes a factory made by {@link #connectTo(String, int)} and its connections.
	 * @param factory the factory
	 */
	public static void destroy(RedisConnectionFactory factory) {
		try {
			((DisposableBean) factory).destroy();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not close " + factory, ex);
		}
	}

}
