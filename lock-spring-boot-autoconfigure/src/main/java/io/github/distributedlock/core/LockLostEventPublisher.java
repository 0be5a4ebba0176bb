package io.github.distributedlock.core;

import java.util.Objects;

import io.github.distributedlock.annotation.LockType;

import org.springframework.context.ApplicationEventPublisher;

/**
 * A {@link LockObserver} that publishes a {@link LockLostEvent} for every loss it is told of. Thread-safe.
 */
public final class LockLostEventPublisher implements LockObserver {

	private final ApplicationEventPublisher publisher;

	/**
	 * Creates the publisher; it is the source of the events it publishes.
	 * @param publisher where to publish, normally the application context
	 */
	public LockLostEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = Objects.requireNonNull(publisher, "publisher must not be null");
	}

	@Override
	public void lost(String key, LockType type, String reason) {
		lost(key, type, 1, reason);
	}

	@Override
	public void lost(String key, LockType type, int permits, String reason) {
		this.publisher.publishEvent(new LockLostEvent(this, key, type, permits, reason));
	}

}
