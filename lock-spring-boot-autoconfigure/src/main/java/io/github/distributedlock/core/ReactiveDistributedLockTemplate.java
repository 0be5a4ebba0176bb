package io.github.distributedlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.distributedlock.annotation.OnLockLoss;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/**
 * Runs reactive code under distributed locks, without blocking a thread: the lock is acquired when the result
 * is subscribed to (nothing before), {@code action} is subscribed only once the lock is held, and the lock is
 * released when {@code action} completes, fails or is cancelled. While it waits, no thread waits: a release
 * notification from Redis (or the end of the holder's lease) completes the wait. Cancelling during the wait
 * gives it up and withdraws its place in the queue.
 * <pre class="code">
 * Mono&lt;Receipt&gt; paid = reactiveLockTemplate.execute("order:" + id, payments.charge(id));
 * </pre>
 * Each subscription chain is an owner of its own ({@link LockClient#newAsyncOwner()}), reentrant within the
 * chain: an {@code execute} on the same lock inside {@code action} re-enters it (its handle has the outer
 * fencing token). Inside {@code action} the Reactor {@link Context} holds the innermost {@link LockHandle}
 * under the key {@code LockHandle.class}:
 * <pre class="code">
 * Mono.deferContextual((context) -&gt; stock.write(sku, context.get(LockHandle.class).fencingToken()))
 * </pre>
 * {@code action} is subscribed, and the result's signals arrive, on Reactor's {@code parallel()} scheduler,
 * never on the Redis client's I/O threads (which the action's own Redis calls may need); code that blocks
 * should move with {@code publishOn(Schedulers.boundedElastic())}. The blocking template is
 * {@link DistributedLockTemplate}; keys and locks are the same. Thread-safe; the starter registers one as a
 * bean when Reactor and a reactive Redis connection (Lettuce) are available.
 */
public class ReactiveDistributedLockTemplate {

	private static final Log logger = LogFactory.getLog(ReactiveDistributedLockTemplate.class);

	/** Context key of the chain's owner id. */
	private static final Object OWNER = new Object() {
		@Override
		public String toString() {
			return "distributed-lock owner";
		}
	};

	private final LockAcquirer acquirer;

	/**
	 * Creates a template.
	 * @param client the store of the locks; it must acquire asynchronously ({@link LockClient#acquireAsync})
	 * @param defaultLease lease of definitions that set none ({@code distributed-lock.lease})
	 * @param defaultAcquireTimeout acquire timeout of definitions that set none
	 * ({@code distributed-lock.acquire-timeout}); not negative
	 * @throws IllegalArgumentException if a default is out of range; the message names the property
	 */
	public ReactiveDistributedLockTemplate(LockClient client, Duration defaultLease, Duration defaultAcquireTimeout) {
		this(client, defaultLease, defaultAcquireTimeout, OnLockLoss.NONE);
	}

	/**
	 * Creates a template with a default reaction to a lost lock.
	 * @param client the store of the locks; it must acquire asynchronously ({@link LockClient#acquireAsync})
	 * @param defaultLease lease of definitions that set none ({@code distributed-lock.lease})
	 * @param defaultAcquireTimeout acquire timeout of definitions that set none
	 * ({@code distributed-lock.acquire-timeout}); not negative
	 * @param defaultOnLost what happens to the action of definitions that set none when their lock is lost
	 * ({@code distributed-lock.on-lost}): with {@link OnLockLoss#INTERRUPT} the result signals the
	 * {@link LockLostException} at once and the action is cancelled
	 * @throws IllegalArgumentException if a default is out of range; the message names the property
	 */
	public ReactiveDistributedLockTemplate(LockClient client, Duration defaultLease, Duration defaultAcquireTimeout,
			OnLockLoss defaultOnLost) {
		this.acquirer = new LockAcquirer(Objects.requireNonNull(client, "client must not be null"),
				new LockDefaults(defaultLease, defaultAcquireTimeout, defaultOnLost));
	}

	/**
	 * Runs {@code action} while holding the reentrant lock {@code key}, with the default lease, acquire timeout
	 * and auto-renew.
	 * @param <T> the result type
	 * @param key the lock key, such as {@code "order:42"}
	 * @param action the guarded work, subscribed once the lock is held
	 * @return {@code action}'s result, after the release; fails with a {@link LockAcquisitionException} if the lock
	 * was not acquired within the acquire timeout ({@code action} not subscribed), a {@link LockLostException} if
	 * {@code action} completed but the lock was lost before the release, a {@link DistributedLockException} if
	 * Redis could not be reached
	 */
	public <T> Mono<T> execute(String key, Mono<T> action) {
		return execute(LockDefinition.of(key), action);
	}

	/**
	 * Runs {@code action} while holding the lock that {@code definition} describes.
	 * @param <T> the result type
	 * @param definition what to lock and how
	 * @param action the guarded work, subscribed once the lock is held
	 * @return {@code action}'s result, after the release; its error with a release failure added as suppressed;
	 * fails as {@link #execute(String, Mono)} says
	 */
	public <T> Mono<T> execute(LockDefinition definition, Mono<T> action) {
		return executeAll(List.of(definition), action);
	}

	/**
	 * Runs {@code action}, a stream of results, while holding the lock that {@code definition} describes: from
	 * the subscription until {@code action} completes, fails or is cancelled.
	 * @param <T> the element type
	 * @param definition what to lock and how
	 * @param action the guarded work, subscribed once the lock is held
	 * @return {@code action}'s elements; fails as {@link #execute(String, Mono)} says
	 */
	public <T> Flux<T> executeMany(LockDefinition definition, Flux<T> action) {
		return executeAllMany(List.of(definition), action);
	}

	/**
	 * Runs {@code action} while holding every lock of {@code definitions} (multi-key), acquired in one fixed
	 * order (by key) under one acquire deadline, released in reverse order.
	 * @param <T> the result type
	 * @param definitions the locks
	 * @param action the guarded work
	 * @return {@code action}'s result, after the releases; fails as {@link #execute(String, Mono)} says, and
	 * with an {@link IllegalArgumentException} if {@code definitions} is empty or names one key with two types
	 */
	public <T> Mono<T> executeAll(Collection<LockDefinition> definitions, Mono<T> action) {
		return tryExecuteAll(definitions, action, null);
	}

	/**
	 * Like {@link #executeAll(Collection, Mono)}, but when some lock is not acquired within its acquire timeout,
	 * gives what {@code whenNotAcquired} supplies instead of failing.
	 * @param <T> the result type
	 * @param definitions the locks
	 * @param action the guarded work
	 * @param whenNotAcquired supplies the result when the locks were not acquired in time (such as
	 * {@code Mono::empty}), or {@code null} to fail with a {@link LockAcquisitionException} then
	 * @return {@code action}'s result, or what {@code whenNotAcquired} supplied
	 */
	public <T> Mono<T> tryExecuteAll(Collection<LockDefinition> definitions, Mono<T> action,
			@Nullable Supplier<Mono<T>> whenNotAcquired) {
		Objects.requireNonNull(action, "action must not be null");
		// the one element comes with the completion, after the release (which may fail it), as with Mono.usingWhen
		return tryExecuteAllMany(definitions, action.flux(),
				(whenNotAcquired != null) ? () -> whenNotAcquired.get().flux() : null)
			.singleOrEmpty();
	}

	/**
	 * Like {@link #executeAll(Collection, Mono)} for a stream: the locks are held until {@code action}
	 * completes, fails or is cancelled.
	 * @param <T> the element type
	 * @param definitions the locks
	 * @param action the guarded work
	 * @return {@code action}'s elements
	 */
	public <T> Flux<T> executeAllMany(Collection<LockDefinition> definitions, Flux<T> action) {
		return tryExecuteAllMany(definitions, action, null);
	}

	/**
	 * Like {@link #executeAllMany(Collection, Flux)}, but when some lock is not acquired within its acquire
	 * timeout, gives what {@code whenNotAcquired} supplies instead of failing.
	 * @param <T> the element type
	 * @param definitions the locks
	 * @param action the guarded work
	 * @param whenNotAcquired supplies the elements when the locks were not acquired in time (such as
	 * {@code Flux::empty}), or {@code null} to fail with a {@link LockAcquisitionException} then
	 * @return {@code action}'s elements, or what {@code whenNotAcquired} supplied
	 */
	public <T> Flux<T> tryExecuteAllMany(Collection<LockDefinition> definitions, Flux<T> action,
			@Nullable Supplier<Flux<T>> whenNotAcquired) {
		Objects.requireNonNull(action, "action must not be null");
		List<LockDefinition> ordered = LockedRun.inLockingOrder(definitions);
		return Flux.deferContextual((context) -> {
			long owner = owner(context);
			return Flux.usingWhen(acquireAll(ordered, owner),
					(held) -> failOnLoss(action.contextWrite(inLock(owner, held)),
							LossReaction.watched(ordered, held, this.acquirer::interruptsOnLoss)),
					(held) -> release(held, null), (held, error) -> release(held, error), this::releaseCancelled);
		})
			.publishOn(Schedulers.parallel())
			.onErrorMap(ReactiveDistributedLockTemplate::releaseFailure)
			.onErrorResume(NotAcquired.class, (notAcquired) -> (whenNotAcquired != null) ? whenNotAcquired.get()
					: Flux.error(notAcquired.exception));
	}

	/**
	 * The release's own failure ({@link LockLostException}, a {@link DistributedLockException}) instead of the
	 * plain {@code RuntimeException} that {@code usingWhen} wraps a failed cleanup after completion in.
	 */
	private static Throwable releaseFailure(Throwable error) {
		return (error.getClass() == RuntimeException.class && error.getCause() instanceof DistributedLockException release)
				? release : error;
	}

	/**
	 * The action, stopped when a watched lock is lost ({@link OnLockLoss#INTERRUPT}): its upstream is cancelled
	 * and the {@link LockLostException} is signalled downstream (then the locks are released, as after any error).
	 */
	private static <T> Flux<T> failOnLoss(Flux<T> action, List<LockHandle> watched) {
		if (watched.isEmpty()) {
			return action;
		}
		return Flux.defer(() -> {
			CompletableFuture<LockLostException> lost = new CompletableFuture<>();
			for (LockHandle handle : watched) {
				handle.whenLost().thenAccept(lost::complete);
			}
			// suppressCancel: the action's end must not cancel the loss it no longer waits for
			return action.takeUntilOther(Mono.fromFuture(lost, true))
				.concatWith(Mono.defer(() -> lost.isDone() ? Mono.error(lost.join()) : Mono.empty()));
		});
	}

	/** The chain's owner, or a new one for a chain that holds no lock of this template yet. */
	private long owner(reactor.util.context.ContextView context) {
		Long owner = context.getOrDefault(OWNER, null);
		return (owner != null) ? owner : this.acquirer.newAsyncOwner();
	}

	private static Context inLock(long owner, List<LockHandle> held) {
		return Context.of(OWNER, owner, LockHandle.class, held.get(held.size() - 1));
	}

	/**
	 * Acquires the locks one after the other, as one owner, under one deadline; releases those it got if one
	 * is not acquired in time (then fails with {@link NotAcquired}), fails, or the subscription is cancelled.
	 */
	private Mono<List<LockHandle>> acquireAll(List<LockDefinition> ordered, long owner) {
		return Mono.defer(() -> {
			long start = System.nanoTime();
			List<LockHandle> held = new ArrayList<>(ordered.size());
			return Flux.fromIterable(ordered)
				.concatMap((definition) -> acquire(definition, start, owner).doOnNext(held::add), 0)
				.then(Mono.fromSupplier(() -> List.copyOf(held)))
				// off the thread that completed the acquisition (Lettuce's I/O thread), which the action must
				// not hold up: its own Redis calls may need that thread (a first connect blocks on it)
				.publishOn(Schedulers.parallel())
				.onErrorResume((error) -> release(held, error).then(Mono.error(error)))
				.doOnCancel(() -> releaseCancelled(held).subscribe());
		});
	}

	private Mono<LockHandle> acquire(LockDefinition definition, long start, long owner) {
		return Mono.fromFuture(() -> this.acquirer.acquireAsync(definition, start, owner), false)
			.switchIfEmpty(Mono.error(() -> new NotAcquired(
					new LockAcquisitionException(definition.key(), LockedRun.since(start)))));
	}

	/** Releases in reverse order; with a {@code primary} error, release failures are added to it. */
	private static Mono<Void> release(List<LockHandle> held, @Nullable Throwable primary) {
		return held.isEmpty() ? Mono.empty() : Mono.fromFuture(() -> AsyncLockedRun.release(held, primary));
	}

	/** Releases after a cancellation: nobody is left to tell of a failure but the log. */
	private Mono<Void> releaseCancelled(List<LockHandle> held) {
		return release(held, null).onErrorResume((error) -> {
			logger.warn("Releasing the locks of a cancelled subscription failed: " + error.getMessage(), error);
			return Mono.empty();
		});
	}

	/** A lock not acquired in time, on its way to {@code whenNotAcquired} or to the subscriber. */
	private static final class NotAcquired extends RuntimeException {

		private final LockAcquisitionException exception;

		NotAcquired(LockAcquisitionException exception) {
			super(exception.getMessage(), null, false, false);
			this.exception = exception;
		}

	}

}
