package io.github.distributedlock.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Runs code that returns a {@link CompletionStage} under one or more locks, for
 * {@link DistributedLockTemplate#executeAsync}: the locks are held from before the code runs until the stage it
 * returns completes, and released then, from whichever thread completes it. The call is an owner of its own
 * ({@link LockClient#newAsyncOwner()}), not the calling thread: a second call from the same thread while the
 * first stage is pending waits like any other owner. The calling thread waits for the locks (up to the acquire
 * timeout) and runs the code, so the code keeps the caller's thread-bound context (transactions, security);
 * a failure to acquire is a failed stage, never an exception of the call. The returned future completes on a
 * thread of the common fork/join pool, never on the Redis client's I/O threads. Stateless.
 */
final class AsyncLockedRun {

	private AsyncLockedRun() {
	}

	/**
	 * Acquires every lock of {@code definitions} in one fixed order under one acquire deadline as one new owner,
	 * runs {@code action} with their handles in the {@link LockContext}, and releases them when the stage it
	 * returns completes (or the returned future is cancelled).
	 * The loss of a lock whose definition asks so ({@link LockAcquirer#interruptsOnLoss}) fails the returned
	 * future at once, cancels the stage and releases the locks ({@link LossReaction}).
	 * @param whenNotAcquired supplies the result when some lock is not acquired in time, or {@code null} to
	 * fail the stage with a {@link LockAcquisitionException} then
	 * @return the stage's outcome, after the release: its value, unless the release found a lock lost
	 * ({@link LockLostException}); its failure, with release failures added as suppressed
	 */
	static <T> CompletableFuture<T> run(Collection<LockDefinition> definitions, LockAcquirer acquirer,
			LockCallback<? extends @Nullable CompletionStage<T>, ?> action,
			@Nullable Supplier<@Nullable T> whenNotAcquired) {
		List<LockHandle> held = new ArrayList<>(definitions.size());
		List<LockDefinition> ordered = List.of();
		long start = System.nanoTime();
		try {
			ordered = LockedRun.inLockingOrder(definitions);
			long owner = acquirer.newAsyncOwner();
			for (LockDefinition definition : ordered) {
				LockHandle handle = acquire(acquirer.acquireAsync(definition, start, owner), definition, start);
				if (handle == null) {
					LockAcquisitionException notAcquired = new LockAcquisitionException(definition.key(),
							LockedRun.since(start));
					releaseAll(held, notAcquired);
					return (whenNotAcquired != null) ? CompletableFuture.completedFuture(whenNotAcquired.get())
							: CompletableFuture.failedFuture(notAcquired);
				}
				held.add(handle);
			}
		}
		catch (RuntimeException ex) {
			releaseAll(held, ex);
			return CompletableFuture.failedFuture(ex);
		}
		CompletionStage<T> stage;
		LockContext.push(held);
		try {
			stage = action.doInLock();
		}
		catch (Throwable ex) {
			// the method failed before it returned a stage: as it would without the lock, it throws
			LockContext.pop(held.size());
			releaseAll(held, ex);
			throw LockedRun.sneakyThrow(ex);
		}
		LockContext.pop(held.size());
		if (stage == null) {
			return release(held, null).thenApply((done) -> null);
		}
		CompletableFuture<T> result = releasedWhenComplete(stage, held);
		List<LockHandle> watched = LossReaction.watched(ordered, held, acquirer::interruptsOnLoss);
		if (!watched.isEmpty()) {
			LossReaction.failOnLoss(watched, result, stage, () -> release(held, null).exceptionally((ex) -> null));
		}
		return result;
	}

	/** Waits on the calling thread for one acquisition; an interrupt gives it up. */
	private static @Nullable LockHandle acquire(CompletableFuture<@Nullable LockHandle> acquisition,
			LockDefinition definition, long start) {
		try {
			return acquisition.get();
		}
		catch (InterruptedException ex) {
			// cancelling gives up the wait; a lock acquired at that moment is released by the client
			acquisition.cancel(false);
			Thread.currentThread().interrupt();
			throw new LockAcquisitionException(definition.key(), LockedRun.since(start), ex);
		}
		catch (ExecutionException ex) {
			throw asRuntime(ex.getCause());
		}
	}

	private static <T> CompletableFuture<T> releasedWhenComplete(CompletionStage<T> stage, List<LockHandle> held) {
		CompletableFuture<T> result = new CompletableFuture<>();
		// completed on a pool thread, not on the thread that ended the release (Lettuce's I/O thread), which the
		// caller's dependent stages must not hold up
		stage.whenComplete((value, failure) -> release(held, failure).whenCompleteAsync((done, releaseFailure) -> {
			if (failure != null) {
				result.completeExceptionally(unwrap(failure));
			}
			else if (releaseFailure != null) {
				result.completeExceptionally(unwrap(releaseFailure));
			}
			else {
				result.complete(value);
			}
		}, ForkJoinPool.commonPool()));
		result.whenComplete((value, failure) -> {
			if (failure instanceof CancellationException) {
				// the caller gave up on the result: so does the method, and its locks go now
				stage.toCompletableFuture().cancel(true);
				release(held, failure);
			}
		});
		return result;
	}

	/**
	 * Releases asynchronously, in reverse acquisition order. With a {@code primary} failure the release
	 * failures are added to it as suppressed and the result completes normally; otherwise it fails with the
	 * first release failure, the others suppressed.
	 */
	static CompletableFuture<Void> release(List<LockHandle> held, @Nullable Throwable primary) {
		CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
		Throwable[] first = { null };
		Throwable target = (primary != null) ? unwrap(primary) : null;
		for (int i = held.size() - 1; i >= 0; i--) {
			LockHandle handle = held.get(i);
			chain = chain.thenCompose((done) -> handle.closeAsync().handle((closed, ex) -> {
				if (ex != null) {
					Throwable failure = unwrap(ex);
					if (target != null) {
						target.addSuppressed(failure);
					}
					else if (first[0] == null) {
						first[0] = failure;
					}
					else {
						first[0].addSuppressed(failure);
					}
				}
				return null;
			}));
		}
		return chain.thenCompose((done) -> (first[0] != null) ? CompletableFuture.failedFuture(first[0])
				: CompletableFuture.completedFuture(null));
	}

	/** Releases on the calling thread, waiting: before the method's stage exists. */
	private static void releaseAll(List<LockHandle> held, @Nullable Throwable primary) {
		try {
			release(held, primary).join();
		}
		catch (CompletionException ex) {
			throw asRuntime(ex.getCause());
		}
	}

	private static Throwable unwrap(Throwable ex) {
		return ((ex instanceof CompletionException || ex instanceof ExecutionException) && ex.getCause() != null)
				? ex.getCause() : ex;
	}

	private static RuntimeException asRuntime(@Nullable Throwable ex) {
		if (ex instanceof RuntimeException runtime) {
			return runtime;
		}
		if (ex instanceof Error error) {
			throw error;
		}
		return new DistributedLockException("A lock operation failed: " + ex, ex);
	}

}
