package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.actuate.DistributedLockHealthIndicator;
import io.github.distributedlock.actuate.DistributedLocksEndpoint;
import io.github.distributedlock.actuate.RedlockHealthIndicator;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockInspector;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.redis.RedisLockInspector;
import io.github.distributedlock.redlock.RedlockLockClient;
import io.github.distributedlock.redlock.RedlockLockInspector;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configuration of Spring Boot Actuator support for the Redis and Redlock lock clients, each part when its
 * library is present: the {@code distributedlocks} endpoint (when available, that is enabled and exposed:
 * {@code management.endpoints.web.exposure.include=distributedlocks}) over the store's {@link LockInspector}, and the
 * {@code distributedLock} health contributor ({@code management.health.distributedlock.enabled}, on by default): the
 * Redis store's ({@link DistributedLockHealthIndicator}) or the Redlock store's ({@link RedlockHealthIndicator},
 * which needs no {@code RedisConnectionFactory}). Each backs off for a bean of the application's own.
 */
@AutoConfiguration(after = { DistributedLockAutoConfiguration.class, RedlockAutoConfiguration.class })
public final class DistributedLockActuatorAutoConfiguration {

	/**
	 * Creates the auto-configuration; Spring Boot does, when the conditions above hold.
	 */
	public DistributedLockActuatorAutoConfiguration() {
	}

	/** The endpoint, with Spring Boot Actuator, over the store's inspector. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
	@ConditionalOnAvailableEndpoint(DistributedLocksEndpoint.class)
	@EnableConfigurationProperties(DistributedLockProperties.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(LockInspector.class)
		DistributedLocksEndpoint distributedLocksEndpoint(LockClient client, LockInspector inspector,
				DistributedLockProperties properties) {
			return new DistributedLocksEndpoint(client, inspector, properties.getEndpoint().isForceReleaseEnabled());
		}

		/** The Redis store's inspector. */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(RedisConnectionFactory.class)
		@ConditionalOnBean(RedisLockClient.class)
		static class RedisInspectorConfiguration {

			@Bean
			@ConditionalOnMissingBean
			RedisLockInspector distributedLockInspector(RedisConnectionFactory connectionFactory,
					RedisLockClient client) {
				return new RedisLockInspector(connectionFactory, client);
			}

		}

		/** The Redlock store's inspector. */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnBean(RedlockLockClient.class)
		static class RedlockInspectorConfiguration {

			@Bean
			@ConditionalOnMissingBean
			RedlockLockInspector distributedLockInspector(RedlockLockClient client) {
				return new RedlockLockInspector(client);
			}

		}

	}

	/** The health contributor, with Spring Boot's health support. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ AbstractHealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
	@ConditionalOnEnabledHealthIndicator("distributedlock")
	static class HealthConfiguration {

		/** The Redis store's. */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(RedisConnectionFactory.class)
		@ConditionalOnBean(RedisLockClient.class)
		static class RedisHealthConfiguration {

			@Bean
			@ConditionalOnMissingBean(name = "distributedLockHealthIndicator")
			DistributedLockHealthIndicator distributedLockHealthIndicator(RedisConnectionFactory connectionFactory,
					RedisLockClient client) {
				return new DistributedLockHealthIndicator(connectionFactory, client);
			}

		}

		/** The Redlock store's. */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnBean(RedlockLockClient.class)
		static class RedlockHealthConfiguration {

			@Bean
			@ConditionalOnMissingBean(name = "distributedLockHealthIndicator")
			RedlockHealthIndicator distributedLockHealthIndicator(RedlockLockClient client) {
				return new RedlockHealthIndicator(client);
			}

		}

	}

}
