package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.github.distributedlock.actuate.DistributedLockHealthIndicator;
import io.github.distributedlock.actuate.DistributedLocksEndpoint;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockLostEventPublisher;
import io.github.distributedlock.metrics.LockHealthGauge;
import io.github.distributedlock.metrics.LockMetrics;
import io.github.distributedlock.metrics.LockObservationDecorator;
import io.github.distributedlock.metrics.ObservedLockClient;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.redis.RedisLockInspector;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The observability auto-configurations with {@link ApplicationContextRunner}: each part is there with its
 * library and registry, backs off without its library and for a bean of the application's own.
 */
class DistributedLockObservabilityAutoConfigurationTests {

	private static final RedisServer server = SharedRedis.server();

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DistributedLockAutoConfiguration.class, DistributedLockMetricsAutoConfiguration.class,
					DistributedLockActuatorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"management.endpoints.web.exposure.include=distributedlocks");
	}

	private ApplicationContextRunner withRegistries() {
		return contextRunner().withUserConfiguration(Registries.class);
	}

	@Test
	void everyPartIsThereWithItsLibraryAndRegistry() {
		withRegistries().run((context) -> {
			assertThat(context).hasSingleBean(LockMetrics.class)
				.hasSingleBean(LockObservationDecorator.class)
				.hasSingleBean(LockLostEventPublisher.class)
				.hasSingleBean(DistributedLocksEndpoint.class)
				.hasSingleBean(RedisLockInspector.class)
				.hasBean("distributedLockHealthIndicator");
			assertThat(context.getBean(DistributedLockTemplate.class).getClient()).isInstanceOf(ObservedLockClient.class);
			context.getBean(DistributedLockTemplate.class).execute("order:1", () -> null);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("distributed.lock.acquire").tag("lock", "order").tag("outcome", "acquired").timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("distributed.lock.held").tag("lock", "order").tag("outcome", "released").timer()
				.count()).isEqualTo(1);
			assertThat(context.getBean(DistributedLockHealthIndicator.class).health().getStatus().getCode())
				.isEqualTo("UP");
			assertThat(context).hasSingleBean(LockHealthGauge.class);
			Awaitility.await("distributed.lock.health = 1").atMost(Duration.ofSeconds(10))
				.until(() -> meters.get("distributed.lock.health").gauge().value() == 1);
		});
	}

	@Test
	void withoutRegistryBeansThereAreNoMetersAndTheClientIsNotDecorated() {
		contextRunner().run((context) -> {
			assertThat(context).doesNotHaveBean(LockMetrics.class).doesNotHaveBean(LockObservationDecorator.class);
			assertThat(context.getBean(DistributedLockTemplate.class).getClient()).isInstanceOf(RedisLockClient.class);
		});
	}

	@Test
	void metricsBackOffWithoutMicrometer() {
		withRegistries().withClassLoader(new FilteredClassLoader(MeterRegistry.class, ObservationRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockMetrics.class)
				.doesNotHaveBean(LockObservationDecorator.class)
				.hasSingleBean(DistributedLockTemplate.class));
	}

	@Test
	void onlyTheObservationWithTheObservationApiAlone() {
		contextRunner().withUserConfiguration(ObservationOnly.class)
			.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockMetrics.class)
				.hasSingleBean(LockObservationDecorator.class));
	}

	@Test
	void endpointAndHealthBackOffWithoutActuator() {
		withRegistries().withClassLoader(new FilteredClassLoader(Endpoint.class, AbstractHealthIndicator.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(DistributedLocksEndpoint.class)
				.doesNotHaveBean(RedisLockInspector.class)
				.doesNotHaveBean(DistributedLockHealthIndicator.class)
				.hasSingleBean(LockMetrics.class));
	}

	@Test
	void theEndpointNeedsToBeExposedAndTheHealthIndicatorCanBeSwitchedOff() {
		withRegistries()
			.withPropertyValues("management.endpoints.web.exposure.include=health",
					"management.health.distributedlock.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(DistributedLocksEndpoint.class)
					.doesNotHaveBean(DistributedLockHealthIndicator.class)
					.doesNotHaveBean(LockHealthGauge.class);
				assertThat(context.getBean(MeterRegistry.class).find("distributed.lock.health").gauge()).isNull();
			});
	}

	@Test
	void theHealthGaugeNeedsMicrometer() {
		contextRunner().run((context) -> assertThat(context).hasNotFailed()
			.hasBean("distributedLockHealthIndicator")
			.doesNotHaveBean(LockHealthGauge.class));
	}

	@Test
	void everyBeanBacksOffForTheApplicationsOwn() {
		withRegistries().withUserConfiguration(OwnBeans.class).run((context) -> {
			assertThat(context.getBean(LockMetrics.class)).isSameAs(context.getBean(OwnBeans.class).metrics);
			assertThat(context).hasSingleBean(LockMetrics.class)
				.hasSingleBean(LockObservationDecorator.class)
				.hasSingleBean(LockLostEventPublisher.class)
				.hasSingleBean(DistributedLocksEndpoint.class)
				.hasSingleBean(RedisLockInspector.class)
				.hasBean("ownDecorator")
				.hasBean("ownPublisher")
				.hasBean("ownInspector")
				.hasBean("ownEndpoint");
			assertThat(context.getBean("distributedLockHealthIndicator", HealthIndicator.class).health().getStatus()
				.getCode()).isEqualTo("OWN");
			// the gauge reads the application's contributor: not UP
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			Awaitility.await("distributed.lock.health = 0").atMost(Duration.ofSeconds(10))
				.until(() -> meters.get("distributed.lock.health").gauge().value() == 0);
			// the application's decorator is the one the template runs on: it adds nothing
			assertThat(context.getBean(DistributedLockTemplate.class).getClient()).isInstanceOf(RedisLockClient.class);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Registries {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		ObservationRegistry observationRegistry(MeterRegistry meterRegistry) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meterRegistry));
			return registry;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ObservationOnly {

		@Bean
		ObservationRegistry observationRegistry() {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler((context) -> true);
			return registry;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnBeans {

		final LockMetrics metrics = new LockMetrics(new SimpleMeterRegistry());

		@Bean
		LockMetrics ownLockMetrics() {
			return this.metrics;
		}

		@Bean
		LockObservationDecorator ownDecorator() {
			return new LockObservationDecorator(ObservationRegistry.NOOP, null);
		}

		@Bean
		LockLostEventPublisher ownPublisher(ApplicationEventPublisher publisher) {
			return new LockLostEventPublisher(publisher);
		}

		@Bean
		RedisLockInspector ownInspector(org.springframework.data.redis.connection.RedisConnectionFactory factory,
				RedisLockClient client) {
			return new RedisLockInspector(factory, client);
		}

		@Bean
		DistributedLocksEndpoint ownEndpoint(RedisLockClient client, RedisLockInspector inspector) {
			return new DistributedLocksEndpoint(client, inspector, false);
		}

		@Bean
		HealthIndicator distributedLockHealthIndicator() {
			return () -> Health.status("OWN").build();
		}

	}

}
