package io.github.distributedlock.autoconfigure;

import java.util.UUID;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.metrics.LockAcquireTimer;
import io.github.distributedlock.metrics.LockMetrics;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code distributed.lock.acquire} timer wherever a {@link MeterRegistry} is, on a real Redis: made by
 * {@link LockAcquireTimer} when no observation makes it (Micrometer without Actuator), and exactly once where
 * Actuator's observation handler makes it.
 */
class AcquireTimerAutoConfigurationTests {

	private static final RedisServer server = SharedRedis.server();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class,
				DistributedLockMetricsAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());

	@Test
	void withAMeterRegistryAndWithoutActuatorEveryMeterIsThere() {
		this.contextRunner.withUserConfiguration(MeterRegistryOnly.class)
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
					"org.springframework.boot.micrometer"))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(LockAcquireTimer.class).hasSingleBean(LockMetrics.class);
				String lock = lockOnce(context);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(acquireTimers(meters, lock)).singleElement().satisfies((timer) -> {
					assertThat(timer.getId().getTag("type")).isEqualTo("reentrant");
					assertThat(timer.getId().getTag("outcome")).isEqualTo("acquired");
					assertThat(timer.count()).isEqualTo(1);
				});
				assertThat(meters.find(LockMetrics.HELD).tag("lock", lock).timer()).isNotNull();
				assertThat(meters.find(LockMetrics.ACTIVE).gauge()).isNotNull();
			});
	}

	@Test
	void withActuatorsObservationsTheAcquireTimerIsMadeOnce() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(LockAcquireTimer.class);
				String lock = lockOnce(context);
				assertThat(acquireTimers(context.getBean(MeterRegistry.class), lock)).singleElement()
					.satisfies((timer) -> assertThat(timer.count()).isEqualTo(1));
			});
	}

	@Test
	void withSpringBootsObservationsWithoutAMeterHandlerTheAcquireTimerIsMadeOnce() {
		this.contextRunner.withUserConfiguration(MeterRegistryOnly.class)
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(LockAcquireTimer.class);
				String lock = lockOnce(context);
				assertThat(acquireTimers(context.getBean(MeterRegistry.class), lock)).singleElement()
					.satisfies((timer) -> assertThat(timer.count()).isEqualTo(1));
			});
	}

	private static String lockOnce(AssertableApplicationContext context) {
		String lock = "timed" + UUID.randomUUID().toString().replace("-", "");
		context.getBean(DistributedLockTemplate.class).execute(lock + ":1", () -> null);
		return lock;
	}

	private static java.util.Collection<Timer> acquireTimers(MeterRegistry meters, String lock) {
		return meters.find("distributed.lock.acquire").tag("lock", lock).timers();
	}

	@Configuration(proxyBeanMethods = false)
	static class MeterRegistryOnly {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
