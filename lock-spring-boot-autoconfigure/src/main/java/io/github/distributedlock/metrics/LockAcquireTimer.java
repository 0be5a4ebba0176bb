package io.github.distributedlock.metrics;

import java.util.Objects;

import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockClientDecorator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Times every acquisition as the {@code distributed.lock.acquire} timer (tags {@code lock}, {@code type},
 * {@code outcome}) on a {@link MeterRegistry}, for an application whose observations make no meters: one with
 * Micrometer but without Actuator, whose {@link ObservationRegistry} (if any) has no meter handler. It observes
 * the acquisition as {@link LockObservationDecorator} does, on an observation registry of its own whose one
 * handler is Micrometer's {@link DefaultMeterObservationHandler}, so the timer is the same, with the same tags,
 * as where Actuator's handler makes it. Thread-safe.
 */
public final class LockAcquireTimer implements LockClientDecorator {

	private final ObservationRegistry meters;

	private final @Nullable ObservationConvention<LockAcquireContext> convention;

	/**
	 * Creates the decorator.
	 * @param registry where the timer goes
	 * @param convention a convention that replaces {@link DefaultLockAcquireObservationConvention}, or
	 * {@code null}
	 */
	public LockAcquireTimer(MeterRegistry registry, @Nullable ObservationConvention<LockAcquireContext> convention) {
		Objects.requireNonNull(registry, "registry must not be null");
		this.meters = ObservationRegistry.create();
		this.meters.observationConfig().observationHandler(new DefaultMeterObservationHandler(registry));
		this.convention = convention;
	}

	@Override
	public LockClient decorate(LockClient client) {
		return new ObservedLockClient(client, this.meters, this.convention);
	}

}
