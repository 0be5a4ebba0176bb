package io.github.distributedlock.test;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One Redis server for every test class of a test JVM that does not kill or restart it, started on first
 * use and stopped when the JVM exits. Tests use keys of their own (random suffixes), so they do not meet.
 */
public final class SharedRedis {

	private static RedisServer server;

	private static LettuceConnectionFactory connectionFactory;

	private static final Map<RedisClientLibrary, RedisConnectionFactory> otherFactories = new EnumMap<>(
			RedisClientLibrary.class);

	private SharedRedis() {
	}

	public static synchronized RedisServer server() {
		if (server == null) {
			server = RedisServer.start();
			Runtime.getRuntime().addShutdownHook(new Thread(() -> {
				if (connectionFactory != null) {
					connectionFactory.destroy();
				}
				otherFactories.values().forEach(RedisClientLibrary::destroy);
				server.close();
			}));
		}
		return server;
	}

	/**
	 * Returns a started connection factory on the shared server; do not destroy it.
	 * @return the shared connection factory
	 */
	public static synchronized LettuceConnectionFactory connectionFactory() {
		if (connectionFactory == null) {
			connectionFactory = server().connectionFactory();
		}
		return connectionFactory;
	}

	/**
	 * Returns a started connection factory of a client library on the shared server; do not destroy it.
	 * @param library the Redis client library
	 * @return the shared connection factory of that library
	 */
	public static synchronized RedisConnectionFactory connectionFactory(RedisClientLibrary library) {
		if (library == RedisClientLibrary.LETTUCE) {
			return connectionFactory();
		}
		return otherFactories.computeIfAbsent(library, (l) -> l.connectTo(server().host(), server().port()));
	}

	public static StringRedisTemplate redis() {
		return new StringRedisTemplate(connectionFactory());
	}

	/** The server's clock (TIME), in milliseconds: the clock the lock scripts write deadlines with. */
	public static long timeMillis() {
		Long now = redis().execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		return Objects.requireNonNull(now, "TIME returned nothing");
	}

}
