package io.github.distributedlock.local;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.distributedlock.core.LockHandle;
import org.jspecify.annotations.Nullable;

/**
 * Runs the acquisitions of {@link LocalLockClient}'s asynchronous owners: one try at once on the calling thread,
 * then, if the lock (or every permit) is taken, a wait on a pool thread of its own (this store is for tests and
 * single-instance development: a waiting owner costs a thread here). Cancelling the returned future interrupts
 * the wait; a hold granted after the cancellation is released at once. Thread-safe.
 */
final class AsyncWaits {

	/** Waits for locks for asynchronous owners, one thread each while it waits. */
	private static final ExecutorService WAITERS = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "distributed-lock-local-waiter");
		thread.setDaemon(true);
		return thread;
	});

	private AsyncWaits() {
	}

	/**
	 * Acquires for an asynchronous owner.
	 * @param attempt one acquisition of the owner's lock, given its acquire timeout ({@code null}: no limit) and
	 * whether an interrupt ends its wait
	 * @param timeout the acquire timeout; {@code null} waits without limit, {@link Duration#ZERO} tries once
	 * @return the handle, or {@code null} in the future if the timeout passed (or the wait was interrupted); the
	 * future fails with what the attempt threw
	 */
	static CompletableFuture<@Nullable LockHandle> acquire(Attempt attempt, @Nullable Duration timeout) {
		long start = System.nanoTime();
		LockHandle handle;
		try {
			handle = attempt.acquire(Duration.ZERO, false);
		}
		catch (RuntimeException | InterruptedException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (handle != null || (timeout != null && timeout.isZero())) {
			return CompletableFuture.completedFuture(handle);
		}
		CompletableFuture<@Nullable LockHandle> acquired = new CompletableFuture<>();
		Future<?> waiting = WAITERS.submit(() -> {
			Duration remaining = (timeout != null) ? timeout.minusNanos(System.nanoTime() - start) : null;
			try {
				LockHandle waited = attempt.acquire((remaining != null && remaining.isNegative()) ? Duration.ZERO
						: remaining, true);
				if (!acquired.complete(waited) && waited != null) {
					// cancelled meanwhile: nobody gets this hold
					waited.close();
				}
			}
			catch (InterruptedException ex) {
				acquired.complete(null);
			}
			catch (RuntimeException ex) {
				acquired.completeExceptionally(ex);
			}
		});
		acquired.whenComplete((done, ex) -> {
			if (acquired.isCancelled()) {
				waiting.cancel(true);
			}
		});
		return acquired;
	}

	/** One acquisition of an asynchronous owner's lock. */
	@FunctionalInterface
	interface Attempt {

		@Nullable LockHandle acquire(@Nullable Duration timeout, boolean interruptible) throws InterruptedException;

	}

}
