package io.github.distributedlock.metrics;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code distributed.lock.health} gauge: 1 while the {@code distributedLock} health contributor is
 * {@link Status#UP UP}, 0 otherwise, so that an alert rule can watch the contributor (a Prometheus server reads
 * meters, not {@code /actuator/health}).
 * <p>
 * A read returns the result of the last check and starts the next one, on a daemon thread of its own (one check
 * at a time), without waiting for it: a check sends a PING, which waits up to the Redis command timeout
 * ({@code spring.data.redis.timeout}, a minute when unset), and a scrape must not wait that long for one meter
 * while Redis does not answer. So the value is as old as the previous read (a scrape interval); the first check
 * starts with the gauge, and until it ends the value is {@code NaN}. Thread-safe.
 */
public final class LockHealthGauge {

	/** Name of the gauge. */
	public static final String HEALTH = "distributed.lock.health";

	private final HealthIndicator indicator;

	private final AtomicBoolean checking = new AtomicBoolean();

	/** 1 (up), 0 (not up), or NaN before the first check ended; written by the checking thread only. */
	private volatile double up = Double.NaN;

	/**
	 * Registers the gauge and starts the first check.
	 * @param registry where it goes
	 * @param indicator the {@code distributedLock} health contributor (the library's, or the application's
	 * bean of that name)
	 */
	public LockHealthGauge(MeterRegistry registry, HealthIndicator indicator) {
		Objects.requireNonNull(registry, "registry must not be null");
		this.indicator = Objects.requireNonNull(indicator, "indicator must not be null");
		Gauge.builder(HEALTH, this, LockHealthGauge::read)
			.description("Whether the distributedLock health contributor was UP (1) or not (0) at the last check")
			.strongReference(true)
			.register(registry);
		check();
	}

	/**
	 * Returns the result of the last check that ended, and starts the next check unless one runs.
	 * @return 1 if the contributor was up, 0 if not, {@code NaN} before the first check ended
	 */
	double read() {
		check();
		return this.up;
	}

	private void check() {
		if (!this.checking.compareAndSet(false, true)) {
			return;
		}
		Thread thread = new Thread(() -> {
			try {
				this.up = Status.UP.equals(this.indicator.health().getStatus()) ? 1 : 0;
			}
			catch (RuntimeException ex) {
				this.up = 0;
			}
			finally {
				this.checking.set(false);
			}
		}, "distributed-lock-health");
		thread.setDaemon(true);
		thread.start();
	}

}
