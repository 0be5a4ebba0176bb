package io.github.distributedlock.metrics;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The {@code distributed.lock.health} gauge: what it reads, and that a read never waits for a check (a PING to a
 * Redis that does not answer waits up to the command timeout). The Redis-backed contributor's own behaviour is
 * {@code DistributedLockHealthTests}'.
 */
class LockHealthGaugeTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void oneWhileTheContributorIsUpAndZeroOtherwise() {
		AtomicReference<Status> status = new AtomicReference<>(Status.UP);
		new LockHealthGauge(this.registry, () -> Health.status(status.get()).build());
		Gauge gauge = this.registry.get(LockHealthGauge.HEALTH).gauge();
		awaitValue(gauge, 1);
		status.set(Status.DOWN);
		awaitValue(gauge, 0);
		status.set(Status.OUT_OF_SERVICE);
		awaitValue(gauge, 0);
		status.set(Status.UP);
		awaitValue(gauge, 1);
	}

	@Test
	void aContributorThatThrowsCountsAsDown() {
		new LockHealthGauge(this.registry, () -> {
			throw new IllegalStateException("no answer");
		});
		awaitValue(this.registry.get(LockHealthGauge.HEALTH).gauge(), 0);
	}

	@Test
	void aReadReturnsTheLastResultAtOnceWhileACheckWaitsAndStartsNoSecondCheck() throws InterruptedException {
		CountDownLatch answer = new CountDownLatch(1);
		AtomicInteger checks = new AtomicInteger();
		HealthIndicator slow = () -> {
			checks.incrementAndGet();
			try {
				answer.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return Health.up().build();
		};
		new LockHealthGauge(this.registry, slow);
		Gauge gauge = this.registry.get(LockHealthGauge.HEALTH).gauge();
		// the first check waits for its answer: reads return at once, with no result yet
		assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
			for (int i = 0; i < 10; i++) {
				assertThat(gauge.value()).isNaN();
			}
		});
		assertThat(checks).hasValue(1);
		answer.countDown();
		awaitValue(gauge, 1);
	}

	private static void awaitValue(Gauge gauge, double value) {
		Awaitility.await("distributed.lock.health = " + value)
			.atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> gauge.value() == value);
	}

}
