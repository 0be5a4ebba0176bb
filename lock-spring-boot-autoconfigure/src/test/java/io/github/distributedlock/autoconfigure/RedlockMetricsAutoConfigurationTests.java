package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.metrics.RedlockVoteMeters;
import io.github.distributedlock.test.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redlock store's per-node vote meters through the auto-configuration, on 3 real {@code redis-server}
 * processes: there with a {@code MeterRegistry} bean (each node's counters at zero from the startup), absent
 * without one, and the store works without Micrometer on the class path at all.
 */
class RedlockMetricsAutoConfigurationTests {

	private static final List<RedisServer> servers = new ArrayList<>();

	@BeforeAll
	static void start() {
		RedisServer.assumeOnPath();
		for (int i = 0; i < 3; i++) {
			servers.add(RedisServer.start());
		}
	}

	@AfterAll
	static void stop() {
		servers.forEach(RedisServer::close);
	}

	private static ApplicationContextRunner runner() {
		List<String> properties = new ArrayList<>(List.of("distributed-lock.store=redlock",
				"distributed-lock.redlock.node-timeout=250ms", "distributed-lock.redlock.retry-delay=20ms"));
		for (int i = 0; i < servers.size(); i++) {
			properties.add("distributed-lock.redlock.nodes[" + i + "]=redis://" + servers.get(i).host() + ":"
					+ servers.get(i).port());
		}
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class,
					DistributedLockAutoConfiguration.class, DistributedLockMetricsAutoConfiguration.class))
			.withPropertyValues(properties.toArray(new String[0]));
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
