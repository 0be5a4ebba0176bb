package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.github.distributedlock.aop.LockAnnotationValidator;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.local.LocalLockClient;
import io.github.distributedlock.redis.NotificationMode;
import io.github.distributedlock.redis.RedisLockClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Logs how the locks are set up, once the context is refreshed (so after the {@link LockAnnotationValidator}
 * ran): one INFO line with where the locks are (Redis and its address, or this JVM with the local store), the
 * key prefix, the default lease and acquire timeout, replica
 * sync when it is on, sharded notifications when they are on, the client id, that there are no reactive locks when the connection is not reactive
 * (Jedis) and Reactor is present, and how many {@code @DistributedLock} methods were checked.
 * <p>
 * Also a WARN when the Redis command timeout is not below a third of the shortest auto-renewed lease (the
 * default lease, or a shorter one set in an annotation). The watchdog renews every third of a lease and waits
 * for each renewal's answer; if one command may hang longer than that (Lettuce's default command timeout is
 * 60s, the default lease 30s), a single unanswered renewal stalls it past the lease, and the lock is lost while
 * its holder still runs. Reads the connection factory's configuration only; never connects to Redis.
 */
final class DistributedLockStartupLogger
		implements ApplicationListener<ContextRefreshedEvent>, ApplicationContextAware {

	static final String TIMEOUT_PROPERTY = "spring.data.redis.timeout";

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			DistributedLockStartupLogger.class.getClassLoader());

	private static final Log logger = LogFactory.getLog(DistributedLockStartupLogger.class);

	private final DistributedLockTemplate template;

	private final ObjectProvider<RedisConnectionFactory> connectionFactory;

	private final ObjectProvider<LockAnnotationValidator> validator;

	private final Environment environment;

	private @Nullable ApplicationContext applicationContext;

	DistributedLockStartupLogger(DistributedLockTemplate template,
			ObjectProvider<RedisConnectionFactory> connectionFactory, ObjectProvider<LockAnnotationValidator> validator,
			Environment environment) {
		this.template = template;
		this.connectionFactory = connectionFactory;
		this.validator = validator;
		this.environment = environment;
	}

	@Override
	public void setApplicationContext(ApplicationContext applicationContext) {
		this.applicationContext = applicationContext;
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		// a child context's refresh reaches this listener too; only our own context's start counts
		if (event.getApplicationContext() != this.applicationContext) {
			return;
		}
		RedisConnectionSummary redis = RedisConnectionSummary.of(this.connectionFactory.getIfAvailable());
		LockAnnotationValidator checked = this.validator.getIfAvailable();
		if (logger.isInfoEnabled()) {
			logger.info(describe(redis, checked));
		}
		Duration shortestLease = this.template.getDefaultLease();
		Duration annotated = (checked != null) ? checked.getShortestRenewedLease() : null;
		if (annotated != null && annotated.compareTo(shortestLease) < 0) {
			shortestLease = annotated;
		}
		if (this.applicationContext == null
				|| this.applicationContext.getBeanProvider(RedisLockClient.class).getIfUnique() != null) {
			// the Redis command timeout matters to locks on Redis only
			warnIfTimeoutTooLong(redis.commandTimeout(), shortestLease);
		}
	}

	private String describe(RedisConnectionSummary redis, @Nullable LockAnnotationValidator checked) {
		LockClient client = this.template.getClient();
		// the template's client may be decorated (metrics, observations): the Redis client is the bean
		RedisLockClient redisClient = (this.applicationContext != null)
				? this.applicationContext.getBeanProvider(RedisLockClient.class).getIfUnique() : null;
		StringBuilder line = new StringBuilder("Distributed locks ").append(where(redis, redisClient));
		if (redisClient != null) {
			line.append(", key prefix '").append(redisClient.redisKey("")).append("'");
		}
		line.append(", default lease ").append(format(this.template.getDefaultLease()));
		line.append(", acquire timeout ").append(format(this.template.getDefaultAcquireTimeout()));
		if (redisClient != null && redisClient.getSyncReplicas() > 0) {
			line.append(", replica sync ").append(redisClient.getSyncReplicas())
				.append((redisClient.getSyncReplicas() == 1) ? " replica" : " replicas")
				.append(" within ").append(format(redisClient.getSyncTimeout()));
		}
		if (redisClient != null && redisClient.getNotificationMode() == NotificationMode.SHARDED) {
			line.append(", sharded notifications (SPUBLISH/SSUBSCRIBE in each lock's slot)");
		}
		line.append(", client id ").append(client.getClientId());
		if (REACTOR_PRESENT && !(this.connectionFactory.getIfAvailable() instanceof ReactiveRedisConnectionFactory)) {
			line.append("; no reactive locks (Mono/Flux methods, ReactiveDistributedLockTemplate): they need a "
					+ "reactive Redis connection, which Lettuce has and Jedis has not");
		}
		if (checked != null) {
			line.append("; @DistributedLock methods checked: ").append(checked.getValidatedMethodCount());
		}
		return line.toString();
	}

	/** Where the locks are: on Redis only when the client is the Redis one. */
	private String where(RedisConnectionSummary redis, @Nullable RedisLockClient redisClient) {
		if (redisClient != null) {
			return "on Redis " + redis.target();
		}
		LockClient client = (this.applicationContext != null)
				? this.applicationContext.getBeanProvider(LockClient.class).getIfUnique() : null;
		if (client instanceof LocalLockClient) {
			return "in this JVM only (distributed-lock.store=local: not shared with other instances)";
		}
		return "on " + ((client != null) ? client : this.template.getClient()).getClass().getSimpleName();
	}

	private void warnIfTimeoutTooLong(@Nullable Duration commandTimeout, Duration shortestLease) {
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

	private static String format(Duration duration) {
		long millis = duration.toMillis();
		return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
	}

}
