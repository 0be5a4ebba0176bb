package io.github.distributedlock.metrics;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * The meters of held locks, fed by the lock client as a {@link LockObserver}:
 * <ul>
 * <li>{@code distributed.lock.held}: timer, from the acquisition to the release; tags {@code lock}, {@code type},
 * {@code outcome} = {@code released} | {@code lost};</li>
 * <li>{@code distributed.lock.active}: gauge, the locks the owners of this instance hold now;</li>
 * <li>{@code distributed.lock.lost}: counter, locks this instance learned it lost; tags {@code lock},
 * {@code type};</li>
 * <li>{@code distributed.lock.renewals.failed}: counter, renewals that could not reach Redis (each is retried
 * while the lease lasts); tags {@code lock}, {@code type};</li>
 * <li>{@code distributed.lock.releases.failed}: counter, releases that could not reach Redis after the work
 * completed (the work's result stands; the release is retried while the lease lasts); tags {@code lock},
 * {@code type}.</li>
 * </ul>
 * The time to acquire ({@code distributed.lock.acquire}) is an observation, see {@link ObservedLockClient}.
 * The three counters exist at zero from the startup for every lock name known then (see
 * {@link #registerKnown(String, LockType)}); others appear with their first event. Tag values are described in
 * {@link LockTags}. Thread-safe.
 */
public final class LockMetrics implements LockObserver {

	/** Name of the held-time timer. */
	public static final String HELD = "distributed.lock.held";

	/** Name of the gauge of held locks. */
	public static final String ACTIVE = "distributed.lock.active";

	/** Name of the counter of lost locks. */
	public static final String LOST = "distributed.lock.lost";

	/** Name of the counter of failed renewals. */
	public static final String RENEWALS_FAILED = "distributed.lock.renewals.failed";

	/** Name of the counter of releases that could not reach Redis. */
	public static final String RELEASES_FAILED = "distributed.lock.releases.failed";

	private final AtomicInteger active = new AtomicInteger();

	private final MeterProvider<Timer> held;

	private final MeterProvider<Counter> lost;

	private final MeterProvider<Counter> renewalsFailed;

	private final MeterProvider<Counter> releasesFailed;

	/**
	 * Creates the meters in a registry.
	 * @param registry the registry
	 */
	public LockMetrics(MeterRegistry registry) {
		Objects.requireNonNull(registry, "registry must not be null");
		Gauge.builder(ACTIVE, this.active, AtomicInteger::get)
			.description("Locks held by this instance now")
			.register(registry);
		this.held = Timer.builder(HELD).description("How long locks were held, from acquisition to release")
			.withRegistry(registry);
		this.lost = Counter.builder(LOST).description("Locks this instance lost before it released them")
			.withRegistry(registry);
		this.renewalsFailed = Counter.builder(RENEWALS_FAILED)
			.description("Lease renewals that could not reach Redis")
			.withRegistry(registry);
		this.releasesFailed = Counter.builder(RELEASES_FAILED)
			.description("Releases that could not reach Redis after the work under the lock completed")
			.withRegistry(registry);
	}

	/**
	 * Registers the counters of a lock name known before any event ({@code distributed.lock.lost},
	 * {@code distributed.lock.renewals.failed} and {@code distributed.lock.releases.failed} at zero), so that alert
	 * rules and dashboards find a series from the start: a rate or an increase of a series that appears with its
	 * first event misses that event.
	 * @param name the lock name (or a key: its part before the first {@code :} is the tag), such as the
	 * {@code name} of a {@code @DistributedLock}
	 * @param type the lock type
	 */
	public void registerKnown(String name, LockType type) {
		registerKnown(name, type, 1);
	}

	/**
	 * Registers the counters of a lock name known before any event, as {@link #registerKnown(String, LockType)}
	 * does, for a lock or a semaphore.
	 * @param name the lock name (or a key: its part before the first {@code :} is the tag)
	 * @param type the lock type
	 * @param permits the permit count (1 for a lock; more for a semaphore, tagged {@code semaphore})
	 */
	public void registerKnown(String name, LockType type, int permits) {
		Tags tags = tags(name, type, permits);
		this.lost.withTags(tags);
		this.renewalsFailed.withTags(tags);
		this.releasesFailed.withTags(tags);
	}

	@Override
	public void acquired(String key, LockType type) {
		acquired(key, type, 1);
	}

	@Override
	public void acquired(String key, LockType type, int permits) {
		this.active.incrementAndGet();
	}

	@Override
	public void released(String key, LockType type, long heldNanos, boolean lost) {
		released(key, type, 1, heldNanos, lost);
	}

	@Override
	public void released(String key, LockType type, int permits, long heldNanos, boolean lost) {
		this.active.decrementAndGet();
		this.held.withTags(tags(key, type, permits).and(LockTags.OUTCOME, lost ? "lost" : "released"))
			.record(heldNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void lost(String key, LockType type, String reason) {
		lost(key, type, 1, reason);
	}

	@Override
	public void lost(String key, LockType type, int permits, String reason) {
		this.lost.withTags(tags(key, type, permits)).increment();
	}

	@Override
	public void renewalFailed(String key, LockType type) {
		renewalFailed(key, type, 1);
	}

	@Override
	public void renewalFailed(String key, LockType type, int permits) {
		this.renewalsFailed.withTags(tags(key, type, permits)).increment();
	}

	@Override
	public void releaseFailed(String key, LockType type) {
		releaseFailed(key, type, 1);
	}

	@Override
	public void releaseFailed(String key, LockType type, int permits) {
		this.releasesFailed.withTags(tags(key, type, permits)).increment();
	}

	private static Tags tags(String key, LockType type, int permits) {
		return Tags.of(LockTags.LOCK, LockTags.lockName(key), LockTags.TYPE, LockTags.typeName(type, permits));
	}

}
