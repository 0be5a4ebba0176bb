package io.github.distributedlock.autoconfigure;

import javax.sql.DataSource;

import io.github.distributedlock.fencing.FencedJdbc;
import io.github.distributedlock.fencing.FencedRedis;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Auto-configuration of fenced writers: a {@link FencedJdbc} when the application has one {@link DataSource},
 * a {@link FencedRedis} when it has a {@link RedisConnectionFactory}. Each backs off for a bean of the user's;
 * {@code distributed-lock.enabled=false} turns both off.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class,
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
public final class DistributedLockFencingAutoConfiguration {

	/**
	 * Creates the auto-configuration; Spring Boot does, when the conditions above hold.
	 */
	public DistributedLockFencingAutoConfiguration() {
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ JdbcClient.class, DataSource.class })
	@ConditionalOnSingleCandidate(DataSource.class)
	static class Jdbc {

		@Bean
		@ConditionalOnMissingBean
		FencedJdbc fencedJdbc(DataSource dataSource) {
			return new FencedJdbc(dataSource);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RedisConnectionFactory.class)
	@ConditionalOnBean(RedisConnectionFactory.class)
	static class Redis {

		@Bean
		@ConditionalOnMissingBean
		FencedRedis fencedRedis(RedisConnectionFactory connectionFactory) {
			return new FencedRedis(connectionFactory);
		}

	}

}
