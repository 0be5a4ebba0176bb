package io.github.distributedlock.actuate;

import java.util.Objects;

import io.github.distributedlock.redis.RedisLockClient;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code distributedLock} health contributor: {@code UP} when Redis answers a PING and the lock client's
 * release subscription listens, {@code DOWN} otherwise; both are in its details ({@code redis},
 * {@code releaseSubscription}). A PING takes at most the connection's command timeout
 * ({@code spring.data.redis.timeout}). Thread-safe.
 */
public class DistributedLockHealthIndicator extends AbstractHealthIndicator {

	private final RedisConnectionFactory connectionFactory;

	private final RedisLockClient client;

	/**
	 * Creates the indicator.
	 * @param connectionFactory the connections the lock client uses
	 * @param client the lock client
	 */
	public DistributedLockHealthIndicator(RedisConnectionFactory connectionFactory, RedisLockClient client) {
		super("Distributed lock health check failed");
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		this.client = Objects.requireNonNull(client, "client must not be null");
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		boolean redisUp;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			redisUp = "PONG".equalsIgnoreCase(connection.ping());
			builder.withDetail("redis", redisUp ? "up" : "unexpected reply to PING");
		}
		catch (RuntimeException ex) {
			redisUp = false;
			builder.withDetail("redis", "down: " + ex.getMessage());
		}
		boolean listening = this.client.isListening();
		builder.withDetail("releaseSubscription", listening ? "listening" : "not listening");
		builder.withDetail("clientId", this.client.getClientId());
		if (redisUp && listening) {
			builder.up();
		}
		else {
			builder.down();
		}
	}

}
