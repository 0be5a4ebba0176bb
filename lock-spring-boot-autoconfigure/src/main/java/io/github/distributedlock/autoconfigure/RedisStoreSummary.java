package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.github.distributedlock.redis.NotificationMode;
import io.github.distributedlock.redis.RedisLockClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * What the startup line says of locks on Redis: the Redis target and the key prefix, replica sync when it is on,
 * sharded notifications when they are on,
 * and that there are no reactive locks when Reactor is present but the connection is not reactive (Jedis).
 * <p>
 * Its check is a WARN (in the category of {@link DistributedLockStartupLogger}, beside the line) when the Redis
 * command timeout is not below a third of the shortest auto-renewed lease. The watchdog renews every third of a
 * lease and waits for each renewal's answer; if one command may hang longer than that (Lettuce's default command
 * timeout is 60s, the default lease 30s), a single unanswered renewal stalls it past the lease, and the lock is
 * lost while its holder still runs. Says nothing when the application's lock client is not the Redis one. Reads
 * the connection factory's configuration only; never connects to Redis.
 */
final class RedisStoreSummary implements LockStoreSummary {

	static final String TIMEOUT_PROPERTY = "spring.data.redis.timeout";

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			RedisStoreSummary.class.getClassLoader());

	private static final Log logger = LogFactory.getLog(DistributedLockStartupLogger.class);

	private final ObjectProvider<RedisConnectionFactory> connectionFactory;

	private final ObjectProvider<RedisLockClient> redisClient;

	private final Environment environment;

	RedisStoreSummary(ObjectProvider<RedisConnectionFactory> connectionFactory,
			ObjectProvider<RedisLockClient> redisClient, Environment environment) {
		this.connectionFactory = connectionFactory;
		this.redisClient = redisClient;
		this.environment = environment;
	}

	@Override
	public @Nullable String where() {
		// the template's client may be decorated (metrics, observations): the Redis client is the bean
		RedisLockClient client = this.redisClient.getIfUnique();
		if (client == null) {
			return null;
		}
		return "on Redis " + connection().target() + ", key prefix '" + client.redisKey("") + "'";
	}

	@Override
	public String settings() {
		RedisLockClient client = this.redisClient.getIfUnique();
		if (client == null) {
			return "";
		}
		StringBuilder settings = new StringBuilder();
		if (client.getSyncReplicas() > 0) {
			settings.append(", replica sync ").append(client.getSyncReplicas())
				.append((client.getSyncReplicas() == 1) ? " replica" : " replicas")
				.append(" within ").append(DistributedLockStartupLogger.format(client.getSyncTimeout()));
		}
		if (client.getNotificationMode() == NotificationMode.SHARDED) {
			settings.append(", sharded notifications (SPUBLISH/SSUBSCRIBE in each lock's slot)");
		}
		return settings.toString();
	}

	@Override
	public String notes() {
		if (this.redisClient.getIfUnique() == null || !REACTOR_PRESENT
				|| this.connectionFactory.getIfAvailable() instanceof ReactiveRedisConnectionFactory) {
			return "";
		}
		return "; no reactive locks (Mono/Flux methods, ReactiveDistributedLockTemplate): they need a reactive Redis "
				+ "connection, which Lettuce has and Jedis has not";
	}

	@Override
	public void check(Duration shortestLease) {
		// the Redis command timeout matters to locks on Redis only
		if (this.redisClient.getIfUnique() == null) {
			return;
		}
		Duration commandTimeout = connection().commandTimeout();
		Duration renewalPeriod = shortestLease.dividedBy(3);
		if (commandTimeout == null || commandTimeout.compareTo(renewalPeriod) < 0) {
			return;
		}
		Duration suggested = renewalPeriod.dividedBy(3);
		if (suggested.compareTo(Duration.ofSeconds(2)) > 0) {
			suggested = Duration.ofSeconds(2);
		}
		String setting = this.environment.containsProperty(TIMEOUT_PROPERTY)
				? TIMEOUT_PROPERTY + " = " + format(commandTimeout) : TIMEOUT_PROPERTY + " is not set";
		logger.warn("The Redis command timeout is " + format(commandTimeout) + " (" + setting
				+ "), not below a third of the shortest lease (" + format(shortestLease) + " / 3 = "
				+ format(renewalPeriod) + "): one unanswered renewal can stall the watchdog past the lease, and the "
				+ "lock is lost while its holder runs. Set " + TIMEOUT_PROPERTY + " below " + format(renewalPeriod)
				+ ", such as " + format(suggested) + ".");
	}

	private RedisConnectionSummary connection() {
		return RedisConnectionSummary.of(this.connectionFactory.getIfAvailable());
	}

	private static String format(Duration duration) {
		return DistributedLockStartupLogger.format(duration);
	}

}
