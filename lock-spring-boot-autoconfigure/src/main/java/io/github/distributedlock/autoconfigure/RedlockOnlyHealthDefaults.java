package io.github.distributedlock.autoconfigure;

import java.util.List;
import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Keeps Spring Boot's {@code redis} health indicator from judging a Redlock-only application by a Redis it never
 * uses: with {@code distributed-lock.store=redlock} and no Redis named under {@code spring.data.redis} (no
 * {@code host}, {@code port}, {@code url}, {@code sentinel} or {@code cluster}), the starter's Spring Data Redis
 * still makes a connection factory for {@code localhost:6379}, which holds no locks, and the {@code redis}
 * indicator would make the application {@code DOWN} (or {@code UP}) by it. Then this sets
 * {@code management.health.redis.enabled=false} as a default, below every property source of the application, so
 * that the {@code distributedLock} contributor, which asks the Redlock nodes, speaks for the locks; an application
 * that sets the property itself, or names a Redis, keeps the indicator. Registered in
 * {@code META-INF/spring.factories}; runs after the application's configuration files are read.
 */
public final class RedlockOnlyHealthDefaults implements EnvironmentPostProcessor, Ordered {

	/** The property this sets as a default. */
	static final String PROPERTY = "management.health.redis.enabled";

	/** The name of the property source it adds, last. */
	static final String SOURCE = "distributedLockRedlockOnlyDefaults";

	/**
	 * Creates the post-processor; Spring Boot does, from {@code META-INF/spring.factories}.
	 */
	public RedlockOnlyHealthDefaults() {
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (!"redlock".equalsIgnoreCase(environment.getProperty("distributed-lock.store", "").trim())
				|| !environment.getProperty("distributed-lock.enabled", Boolean.class, true)
				|| namesARedis(environment)) {
			return;
		}
		environment.getPropertySources().addLast(new MapPropertySource(SOURCE, Map.of(PROPERTY, "false")));
	}

	/** Whether {@code spring.data.redis} says where a Redis of the application's own is. */
	private static boolean namesARedis(ConfigurableEnvironment environment) {
		for (String property : List.of("host", "port", "url", "sentinel.master")) {
			if (environment.containsProperty("spring.data.redis." + property)) {
				return true;
			}
		}
		Binder binder = Binder.get(environment);
		for (String nodes : List.of("sentinel.nodes", "cluster.nodes")) {
			if (binder.bind("spring.data.redis." + nodes, Bindable.listOf(String.class)).isBound()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Runs late: after the configuration files ({@code ConfigDataEnvironmentPostProcessor}) were read.
	 * @return {@link Ordered#LOWEST_PRECEDENCE}
	 */
	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
