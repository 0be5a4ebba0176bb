package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.metrics.RedlockVoteMeters;
import io.github.distributedlock.test.RedlockApplications;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redlock store's per-node vote meters through the auto-configuration, on 3 real {@code redis-server}
 * processes: there with a {@code MeterRegistry} bean (each node's counters at zero from the startup), absent
 * without one, and the store works without Micrometer on the class path at all.
 */
class RedlockMetricsAutoConfigurationTests {

	private static ApplicationContextRunner runner() {
		return RedlockApplications.runner("250ms", RedlockApplications.urls(RedlockApplications.sharedNodes()),
				DistributedLockMetricsAutoConfiguration.class);
	}

	@Test
	void withAMeterRegistryEveryNodesVotesAreCounted() {
		runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			assertThat(context).hasSingleBean(RedlockVoteMeters.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.find(RedlockVoteMeters.VOTES).counters()).hasSize(12);
			acquireOnce(context.getBean(LockClient.class));
			double granted = registry.find(RedlockVoteMeters.VOTES).tag("outcome", "granted").counters().stream()
				.mapToDouble((counter) -> counter.count())
				.sum();
			assertThat(granted).isGreaterThanOrEqualTo(2);
		});
	}

	@Test
	void withoutAMeterRegistryThereAreNoVoteMeters() {
		runner().run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(RedlockVoteMeters.class);
			acquireOnce(context.getBean(LockClient.class));
		});
	}

	@Test
	void withoutMicrometerOnTheClassPathTheStoreStillWorks() {
		runner().withClassLoader(new FilteredClassLoader("io.micrometer")).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean("distributedLockRedlockVoteMeters");
			acquireOnce(context.getBean(LockClient.class));
		});
	}

	private static void acquireOnce(LockClient client) throws InterruptedException {
		LockHandle handle = client.acquire(LockRequest.builder("metered").lease(Duration.ofSeconds(5))
			.timeout(Duration.ofSeconds(10)).build());
		assertThat(handle).isNotNull();
		handle.close();
	}

}
