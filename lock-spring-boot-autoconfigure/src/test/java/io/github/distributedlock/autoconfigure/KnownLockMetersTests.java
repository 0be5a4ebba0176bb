package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.metrics.LockMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lost, renewal-failure and release-failure counters of every lock name the annotations use exist, at zero, as
 * soon as the application has started, so that alert rules and dashboards find their series before the first event
 * (a rate or an increase of a series that appears with its first event misses that event).
 */
class KnownLockMetersTests {

	@Test
	void theCountersOfAnnotatedLockNamesExistAtZeroAfterTheStartup() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LocalLockAutoConfiguration.class,
					DistributedLockMetricsAutoConfiguration.class))
			.withPropertyValues("distributed-lock.store=local")
			.withUserConfiguration(DistributedLockObservabilityAutoConfigurationTests.Registries.class)
			.withBean(Reports.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				for (String meter : new String[] { LockMetrics.LOST, LockMetrics.RENEWALS_FAILED, LockMetrics.RELEASES_FAILED }) {
					assertThat(counter(registry, meter, "report", "reentrant").count()).as(meter).isZero();
					assertThat(counter(registry, meter, "price", "read").count()).as(meter).isZero();
					assertThat(counter(registry, meter, "price", "write").count()).as(meter).isZero();
					assertThat(counter(registry, meter, "Reports.unnamed", "reentrant").count()).as(meter).isZero();
				}
			});
	}

	private static Counter counter(MeterRegistry registry, String name, String lock, String type) {
		Counter counter = registry.find(name).tag("lock", lock).tag("type", type).counter();
		assertThat(counter).as(name + " of lock " + lock + " (" + type + ")").isNotNull();
		return counter;
	}

	static class Reports {

		@DistributedLock(name = "report", key = "#day")
		public void render(String day) {
		}

		@DistributedLock(name = "price", key = "#sku", type = LockType.READ)
		public void read(String sku) {
		}

		@DistributedLock(name = "price", key = "#sku", type = LockType.WRITE)
		public void write(String sku) {
		}

		@DistributedLock
		public void unnamed() {
		}

	}

}
