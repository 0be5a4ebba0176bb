package io.github.distributedlock.metrics;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.metrics.LockAcquireContext.Outcome;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockClient} that makes every acquisition a {@code distributed.lock.acquire} {@link Observation}, so
 * that a trace shows the wait as a span and, with a meter handler in the registry (as Spring Boot configures),
 * a timer of that name records the time to acquire with the tags {@code lock}, {@code type} and
 * {@code outcome} = {@code acquired} | {@code timeout} | {@code interrupted} | {@code error}. Every other method
 * delegates. Thread-safe if the delegate is.
 */
public final class ObservedLockClient implements LockClient {

	private static final ObservationConvention<LockAcquireContext> DEFAULT_CONVENTION = new DefaultLockAcquireObservationConvention();

	private final LockClient delegate;

	private final ObservationRegistry registry;

	private final @Nullable ObservationConvention<LockAcquireContext> convention;

	/**
	 * Creates the client.
	 * @param delegate the client that acquires
	 * @param registry where the observations go
	 * @param convention a convention that replaces {@link DefaultLockAcquireObservationConvention}, or
	 * {@code null}
	 */
	public ObservedLockClient(LockClient delegate, ObservationRegistry registry,
			@Nullable ObservationConvention<LockAcquireContext> convention) {
		this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.convention = convention;
	}

	/**
	 * Returns the client this one delegates to.
	 * @return the delegate
	 */
	public LockClient getDelegate() {
		return this.delegate;
	}

	@Override
	public String getClientId() {
		return this.delegate.getClientId();
	}

	@Override
	public @Nullable LockHandle acquire(String key, LockType type, Duration lease, boolean autoRenew,
			Duration holdAtLeast, @Nullable Duration timeout, boolean interruptible) throws InterruptedException {
		return acquire(key, type, 1, lease, autoRenew, holdAtLeast, timeout, interruptible);
	}

	@Override
	public @Nullable LockHandle acquire(String key, LockType type, int permits, Duration lease, boolean autoRenew,
			Duration holdAtLeast, @Nullable Duration timeout, boolean interruptible) throws InterruptedException {
		LockAcquireContext context = new LockAcquireContext(key, type, permits);
		Observation observation = Observation
			.createNotStarted(this.convention, DEFAULT_CONVENTION, () -> context, this.registry)
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			LockHandle handle = this.delegate.acquire(key, type, permits, lease, autoRenew, holdAtLeast, timeout,
					interruptible);
			context.setOutcome((handle != null) ? Outcome.ACQUIRED : Outcome.TIMEOUT);
			return handle;
		}
		catch (InterruptedException ex) {
			context.setOutcome(Outcome.INTERRUPTED);
			observation.error(ex);
			throw ex;
		}
		catch (RuntimeException | Error ex) {
			observation.error(ex);
			throw ex;
		}
		finally {
			observation.stop();
		}
	}

	@Override
	public long newAsyncOwner() {
		return this.delegate.newAsyncOwner();
	}

	/**
	 * {@inheritDoc} The observation runs from the call until the future completes; no scope is opened, since the
	 * acquisition continues on other threads.
	 */
	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(String key, LockType type, Duration lease,
			boolean autoRenew, Duration holdAtLeast, @Nullable Duration timeout, long owner) {
		return acquireAsync(key, type, 1, lease, autoRenew, holdAtLeast, timeout, owner);
	}

	/**
	 * {@inheritDoc} The observation runs from the call until the future completes; no scope is opened, since the
	 * acquisition continues on other threads.
	 */
	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(String key, LockType type, int permits,
			Duration lease, boolean autoRenew, Duration holdAtLeast, @Nullable Duration timeout, long owner) {
		LockAcquireContext context = new LockAcquireContext(key, type, permits);
		Observation observation = Observation
			.createNotStarted(this.convention, DEFAULT_CONVENTION, () -> context, this.registry)
			.start();
		CompletableFuture<@Nullable LockHandle> acquired = this.delegate.acquireAsync(key, type, permits, lease,
				autoRenew, holdAtLeast, timeout, owner);
		acquired.whenComplete((handle, ex) -> {
			if (ex != null) {
				if (acquired.isCancelled()) {
					context.setOutcome(Outcome.INTERRUPTED);
				}
				observation.error(ex);
			}
			else {
				context.setOutcome((handle != null) ? Outcome.ACQUIRED : Outcome.TIMEOUT);
			}
			observation.stop();
		});
		return acquired;
	}

	@Override
	public void release(String key, LockType type) {
		this.delegate.release(key, type);
	}

	@Override
	public boolean isHeldByCurrentThread(String key, LockType type) {
		return this.delegate.isHeldByCurrentThread(key, type);
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.delegate.heldLocks();
	}

	@Override
	public void close() {
		this.delegate.close();
	}

}
