package io.github.distributedlock.autoconfigure;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.test.SharedRedis;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.logging.LoggingSystem;

import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Starts a Spring Boot application that is expected to fail, so that Spring Boot runs its failure analyzers
 * (from {@code spring.factories}) and prints their report on the console, as in production.
 */
final class FailedStartup {

	private FailedStartup() {
	}

	/**
	 * Runs an application with the Redis and lock auto-configurations on the shared Redis.
	 * @param properties more properties
	 * @param configurations the application's own configurations
	 * @return what the startup threw
	 */
	static Throwable run(Map<String, Object> properties, Class<?>... configurations) {
		SpringApplication application = new SpringApplication(LockApplication.class);
		application.addPrimarySources(List.of(configurations));
		application.setWebApplicationType(WebApplicationType.NONE);
		Map<String, Object> defaults = new HashMap<>(properties);
		defaults.put("spring.data.redis.host", SharedRedis.server().host());
		defaults.put("spring.data.redis.port", SharedRedis.server().port());
		application.setDefaultProperties(defaults);
		// leave the test JVM's logging as it is: the report goes to the console either way
		System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
		try {
			return catchThrowable(application::run);
		}
		finally {
			System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
		}
	}

	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class })
	static class LockApplication {

	}

}
