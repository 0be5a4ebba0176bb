package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.actuate.DistributedLockHealthIndicator;
import io.github.distributedlock.actuate.DistributedLocksEndpoint;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.redis.RedisLockInspector;

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
 * Auto-configuration of Spring Boot Actuator support for the Redis lock client, each part when its library is
 * present: the {@code distributedlocks} endpoint (when available, that is enabled and exposed:
 * {@code management.endpoints.web.exposure.include=distributedlocks}) and the {@code distributedLock} health
 * contributor ({@code management.health.distributedlock.enabled}, on by default). Each backs off for a bean of
 * the application's own.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnBean(RedisLockClient.class)
public final class DistributedLockActuatorAutoConfiguration {

	/**
	 * Creates the auto-configuration; Spring Boot does, when the conditions above hold.
	 */
	public DistributedLockActuatorAutoConfiguration() {
	}

	/** The endpoint, with Spring Boot Actuator. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
	@ConditionalOnAvailableEndpoint(DistributedLocksEndpoint.class)
	@EnableConfigurationProperties(DistributedLockEndpointProperties.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RedisLockInspector distributedLockInspector(RedisConnectionFactory connectionFactory,
				RedisLockClient client) {
			return new RedisLockInspector(connectionFactory, client);
		}

		@Bean
		@ConditionalOnMissingBean
		DistributedLocksEndpoint distributedLocksEndpoint(RedisLockClient client, RedisLockInspector inspector,
				DistributedLockEndpointProperties properties) {
			return new DistributedLocksEndpoint(client, inspector, properties.isForceReleaseEnabled());
		}

	}

	/** The health contributor, with Spring Boot's health support. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ AbstractHealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
	@ConditionalOnEnabledHealthIndicator("distributedlock")
	static class HealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "distributedLockHealthIndicator")
		DistributedLockHealthIndicator distributedLockHealthIndicator(RedisConnectionFactory connectionFactory,
				RedisLockClient client) {
			return new DistributedLockHealthIndicator(connectionFactory, client);
		}

	}

}
