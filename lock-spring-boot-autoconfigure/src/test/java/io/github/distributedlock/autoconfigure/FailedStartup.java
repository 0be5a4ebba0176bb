package io.github.distributedlock.autoconfigure;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.test.SharedRedis;
import io.github.distributedlock.test.StartupFailures;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;

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
		Map<String, Object> defaults = new HashMap<>(properties);
		defaults.put("spring.data.redis.host", SharedRedis.server().host());
		defaults.put("spring.data.redis.port", SharedRedis.server().port());
		List<Class<?>> sources = new ArrayList<>(List.of(LockApplication.class));
		sources.addAll(List.of(configurations));
		return StartupFailures.run(defaults, sources.toArray(new Class<?>[0]));
	}

	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class })
	static class LockApplication {

	}

}
