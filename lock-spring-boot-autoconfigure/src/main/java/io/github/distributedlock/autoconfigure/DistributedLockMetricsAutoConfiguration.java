package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.aop.LockAnnotationValidator;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.metrics.LockAcquireContext;
import io.github.distributedlock.metrics.LockAcquireTimer;
import io.github.distributedlock.metrics.LockHealthGauge;
import io.github.distributedlock.metrics.LockMetrics;
import io.github.distributedlock.metrics.LockObservationDecorator;
import io.github.distributedlock.metrics.RedlockVoteMeters;
import io.github.distributedlock.redlock.RedlockVoteObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AllNestedConditions;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of lock metrics and observations, each when the application has its library and its
 * registry bean: {@link LockMetrics} (the {@code distributed.lock.held}, {@code .active}, {@code .lost},
 * {@code .renewals.failed} and {@code .releases.failed} meters) with a Micrometer {@link MeterRegistry}, and the
 * {@code distributed.lock.acquire} observation of every acquisition with an {@link ObservationRegistry} (whose
 * meter handler, which Spring Boot adds, makes it a timer too). Both back off for a bean of the application's
 * own. The lost, renewal-failure and release-failure counters of the lock names the annotations use exist at zero
 * from the startup. An {@link ObservationConvention} bean for {@link LockAcquireContext} replaces the default names. On the
 * Redlock store, {@link RedlockVoteMeters} counts each node's votes. With the {@code distributedLock} health
 * contributor, {@link LockHealthGauge} makes its status a gauge.
 * <p>
 * Where the observations make no meters (Micrometer without Actuator: no {@link ObservationRegistry} bean, or
 * Spring Boot's with no {@link MeterObservationHandler} bean), {@link LockAcquireTimer} makes the
 * {@code distributed.lock.acquire} timer itself, so the four meters are there wherever a {@link MeterRegistry}
 * is. An {@link ObservationRegistry} the application builds itself is left to make its meters or not: it may
 * have a meter handler that is no bean, and the timer must not be counted twice.
 */
@AutoConfiguration(after = { DistributedLockAutoConfiguration.class, LocalLockAutoConfiguration.class,
		DistributedLockActuatorAutoConfiguration.class }, afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(LockClient.class)
public final class DistributedLockMetricsAutoConfiguration {

	/** The bean name of the health contributor, as {@link DistributedLockActuatorAutoConfiguration} names it. */
	static final String HEALTH_INDICATOR = "distributedLockHealthIndicator";

	/**
	 * Creates the auto-configuration; Spring Boot does, when the conditions above hold.
	 */
	public DistributedLockMetricsAutoConfiguration() {
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ObservationRegistry.class)
	LockObservationDecorator distributedLockObservationDecorator(ObservationRegistry registry,
			ObjectProvider<ObservationConvention<LockAcquireContext>> convention) {
		return new LockObservationDecorator(registry, convention.getIfUnique());
	}

	/** The meters, when Micrometer's core (not only its observation API) is present. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class LockMetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(MeterRegistry.class)
		LockMetrics distributedLockMetrics(MeterRegistry registry) {
			return new LockMetrics(registry);
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(MeterRegistry.class)
		@Conditional(AcquireNotMetered.class)
		LockAcquireTimer distributedLockAcquireTimer(MeterRegistry registry,
				ObjectProvider<ObservationConvention<LockAcquireContext>> convention) {
			return new LockAcquireTimer(registry, convention.getIfUnique());
		}

		/** The per-node vote counters of the Redlock store, which tells them to its {@link RedlockVoteObserver}s. */
		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(MeterRegistry.class)
		@ConditionalOnProperty(name = "distributed-lock.store", havingValue = "redlock")
		RedlockVoteMeters distributedLockRedlockVoteMeters(MeterRegistry registry) {
			return new RedlockVoteMeters(registry);
		}

		@Bean
		@ConditionalOnBean(LockMetrics.class)
		KnownLockMeters distributedLockKnownMeters(LockMetrics metrics,
				ObjectProvider<LockAnnotationValidator> validator, ApplicationContext context) {
			return new KnownLockMeters(metrics, validator, context);
		}

	}

	/** The gauge of the health contributor, when Spring Boot's health support made it (or the application did). */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ MeterRegistry.class, HealthIndicator.class })
	static class LockHealthGaugeConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(value = MeterRegistry.class, name = HEALTH_INDICATOR)
		LockHealthGauge distributedLockHealthGauge(MeterRegistry registry,
				@Qualifier(HEALTH_INDICATOR) HealthIndicator indicator) {
			return new LockHealthGauge(registry, indicator);
		}

	}

	/** No observation makes the acquire timer: no registry, or Spring Boot's without a meter handler. */
	static final class AcquireNotMetered extends AnyNestedCondition {

		AcquireNotMetered() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnMissingBean(ObservationRegistry.class)
		static final class NoObservationRegistry {

		}

		@Conditional(BootRegistryWithoutMeterHandler.class)
		static final class NoMeterHandler {

		}

	}

	/** Spring Boot's observation registry (its handlers are its handler beans), and no meter handler bean. */
	static final class BootRegistryWithoutMeterHandler extends AllNestedConditions {

		BootRegistryWithoutMeterHandler() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnBean(type = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationRegistryPostProcessor")
		static final class BootRegistry {

		}

		@ConditionalOnMissingBean(MeterObservationHandler.class)
		static final class NoMeterHandler {

		}

	}

}
