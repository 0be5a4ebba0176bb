package io.github.distributedlock.metrics;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.core.ForwardingLockClient;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockRequest;
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
 * forwards. Thread-safe if the delegate is.
 */
public final class ObservedLockClient extends ForwardingLockClient {

	private static final ObservationConvention<LockAcquireContext> DEFAULT_CONVENTION = new DefaultLockAcquireObservationConvention();

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
		super(delegate);
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
		this.convention = convention;
	}

	@Override
	public @Nullable LockHandle acquire(LockRequest request) throws InterruptedException {
		LockAcquireContext context = new LockAcquireContext(request.key(), request.type(), request.permits());
		Observation observation = start(context);
		try (Observation.Scope scope = observation.openScope()) {
			LockHandle handle = super.acquire(request);
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

	/**
	 * {@inheritDoc} The observation runs from the call until the future completes; no scope is opened, since the
	 * acquisition continues on other threads.
	 */
	@Override
	public CompletableFuture<@Nullable LockHandle> acquireAsync(LockRequest request) {
		LockAcquireContext context = new LockAcquireContext(request.key(), request.type(), request.permits());
		Observation observation = start(context);
		CompletableFuture<@Nullable LockHandle> acquired = super.acquireAsync(request);
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

	private Observation start(LockAcquireContext context) {
		return Observation.createNotStarted(this.convention, DEFAULT_CONVENTION, () -> context, this.registry).start();
	}

}
