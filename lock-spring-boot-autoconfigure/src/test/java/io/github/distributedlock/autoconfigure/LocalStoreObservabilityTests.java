package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostEvent;
import io.github.distributedlock.core.LockLostEventPublisher;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.local.LocalLockClient;
import io.github.distributedlock.metrics.LockMetrics;
import io.github.distributedlock.metrics.ObservedLockClient;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code distributed-lock.store=local} reports what the Redis store reports: the meters, the acquire observation
 * and {@code LockLostEvent}s, with and without Spring Data Redis on the class path, so that an application's
 * tests on the local store see its dashboards' meters and its loss listeners run.
 */
class LocalStoreObservabilityTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LocalLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
				DistributedLockMetricsAutoConfiguration.class))
		.withUserConfiguration(DistributedLockObservabilityAutoConfigurationTests.Registries.class, LostEvents.class)
		// the contexts of one JVM share the local store: a prefix of its own per run
		.withPropertyValues("distributed-lock.store=local",
				"distributed-lock.key-prefix=local-observability-" + UUID.randomUUID() + ":");

	@Test
	void metersAndTheAcquireObservationCountLocalLocksWithoutSpringDataRedis() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis")).run((context) -> {
			assertThat(context).hasSingleBean(LocalLockClient.class)
				.hasSingleBean(LockMetrics.class)
				.hasSingleBean(LockLostEventPublisher.class);
			DistributedLockTemplate locks = context.getBean(DistributedLockTemplate.class);
			assertThat(locks.getClient()).isInstanceOf(ObservedLockClient.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			Double activeInside = locks.execute("order:1", () -> meters.get(LockMetrics.ACTIVE).gauge().value());
			assertThat(activeInside).isEqualTo(1.0);
			assertThat(meters.get(LockMetrics.ACTIVE).gauge().value()).isZero();
			assertThat(meters.get("distributed.lock.acquire").tag("lock", "order").tag("outcome", "acquired").timer()
				.count()).isEqualTo(1);
			assertThat(meters.get(LockMetrics.HELD)
				.tags("lock", "order", "type", "reentrant", "outcome", "released")
				.timer()
				.count()).isEqualTo(1);
		});
	}

	@Test
	void aSemaphorePermitIsTaggedAsOne() {
		this.contextRunner.run((context) -> {
			DistributedLockTemplate locks = context.getBean(DistributedLockTemplate.class);
			locks.execute(LockDefinition.builder("partner:api").permits(3).build(), () -> {
			});
			assertThat(context.getBean(MeterRegistry.class)
				.get(LockMetrics.HELD)
				.tags("lock", "partner", "type", "semaphore", "outcome", "released")
				.timer()
				.count()).isEqualTo(1);
		});
	}

	/**
	 * A hard lease runs out and another owner takes the lock: the first owner's loss is published once, counted,
	 * and its late release ends its hold as lost.
	 */
	@Test
	void aLostLocalLockIsPublishedAsAnEventAndCounted() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis")).run((context) -> {
			DistributedLockTemplate locks = context.getBean(DistributedLockTemplate.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			List<LockLostEvent> events = context.getBean(LostEvents.class).events;
			LockHandle first = locks
				.acquire(LockDefinition.builder("stock:1").lease(Duration.ofMillis(200)).autoRenew(false).build());
			LockHandle second = CompletableFuture
				.supplyAsync(() -> locks
					.acquire(LockDefinition.builder("stock:1").acquireTimeout(Duration.ofSeconds(10)).build()))
				.get(20, TimeUnit.SECONDS);
			await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
			assertThat(events).singleElement().satisfies((event) -> {
				assertThat(event.getKey()).isEqualTo("stock:1");
				assertThat(event.getReason()).contains("lease of 200 ms ran out");
			});
			assertThat(meters.get(LockMetrics.LOST).tag("lock", "stock").counter().count()).isEqualTo(1);
			assertThatThrownBy(first::close).isInstanceOf(LockLostException.class);
			second.close();
			assertThat(meters.get(LockMetrics.HELD).tags("lock", "stock", "outcome", "lost").timer().count())
				.isEqualTo(1);
			assertThat(meters.get(LockMetrics.HELD).tags("lock", "stock", "outcome", "released").timer().count())
				.isEqualTo(1);
			assertThat(meters.get(LockMetrics.ACTIVE).gauge().value()).isZero();
			assertThat(events).hasSize(1);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class LostEvents {

		final List<LockLostEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void onLost(LockLostEvent event) {
			this.events.add(event);
		}

	}

}
