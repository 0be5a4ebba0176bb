package io.github.distributedlock.metrics;

import java.util.Objects;

import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockClientDecorator;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Decorates the lock client with an {@link ObservedLockClient}, unless the registry is a no-op one.
 * Thread-safe.
 */
public final class LockObservationDecorator implements LockClientDecorator {

	private final ObservationRegistry registry;

	private final @Nullable ObservationConvention<LockAcquireContext> convention;

	/**
	 * Creates the decorator.
	 * @param registry where the observations go
	 * @param convention a convention that replaces {@link DefaultLockAcquireObservationConvention}, or
	 * {@code null}
	 */
	public LockObservationDecorator(ObservationRegistry registry,
			@Nullable ObservationConvention<LockAcquireContext> convention) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.convention = convention;
	}

	@Override
	public LockClient decorate(LockClient client) {
		return this.registry.isNoop() ? client : new ObservedLockClient(client, this.registry, this.convention);
	}

}
