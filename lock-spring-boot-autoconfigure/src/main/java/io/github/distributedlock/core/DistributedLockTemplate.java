package io.github.distributedlock.core;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Supplier;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockLoss;
import org.jspecify.annotations.Nullable;

/**
 * Runs code under distributed locks, and hands out {@link Lock} and {@link ReadWriteLock} views of them.
 * The starter registers one as a bean; {@code @DistributedLock} methods run through it.
 * <pre class="code">
 * String pdf = lockTemplate.execute("invoice:" + id, () -&gt; render(id));
 * lockTemplate.execute(definition, () -&gt; writeFile(id));   // throws IOException, which the caller may catch
 * </pre>
 * A lock is owned by the calling thread of this template's {@link LockClient}: the same thread may
 * acquire it again (reentrancy), and only it can release it. Keys are lock identities without the Redis key
 * prefix: {@code execute("order:42", ...)} is the same lock as {@code @DistributedLock(name = "order",
 * key = "#id")} called with 42.
 * <p>
 * Every acquisition gets a fencing token (see {@link LockHandle}): code inside {@code execute} reads it with
 * {@code LockContext.current().fencingToken()}; {@link #acquire(LockDefinition)} returns the handle itself.
 * <p>
 * Thread-safe; one template serves the whole application.
 */
public class DistributedLockTemplate {

	/** Acquires on this template's client, with its defaults. */
	private final LockAcquirer acquirer;

	/**
	 * Creates a template.
	 * @param client the store of the locks
	 * @param defaultLease lease of definitions that set none ({@code distributed-lock.lease}); at least
	 * {@link LockDefinition#MIN_RENEWABLE_LEASE}
	 * @param defaultAcquireTimeout acquire timeout of definitions that set none
	 * ({@code distributed-lock.acquire-timeout}); not negative
	 * @throws IllegalArgumentException if a default is out of range; the message names the property
	 */
	public DistributedLockTemplate(LockClient client, Duration defaultLease, Duration defaultAcquireTimeout) {
		this(client, defaultLease, defaultAcquireTimeout, OnLockLoss.NONE);
	}

	/**
	 * Creates a template with a default reaction to a lost lock.
	 * @param client the store of the locks
	 * @param defaultLease lease of definitions that set none ({@code distributed-lock.lease}); at least
	 * {@link LockDefinition#MIN_RENEWABLE_LEASE}
	 * @param defaultAcquireTimeout acquire timeout of definitions that set none
	 * ({@code distributed-lock.acquire-timeout}); not negative
	 * @param defaultOnLost what happens to the work of definitions that set none when their lock is lost
	 * ({@code distributed-lock.on-lost})
	 * @throws IllegalArgumentException if a default is out of range; the message names the property
	 */
	public DistributedLockTemplate(LockClient client, Duration defaultLease, Duration defaultAcquireTimeout,
			OnLockLoss defaultOnLost) {
		// the defaults first, so that a bad default is reported as before, also with a null client
		LockDefaults defaults = new LockDefaults(defaultLease, defaultAcquireTimeout, defaultOnLost);
		this.acquirer = new LockAcquirer(Objects.requireNonNull(client, "client must not be null"), defaults);
	}

	/**
	 * Runs {@code action} while holding the reentrant lock {@code key}, with the default lease, acquire
	 * timeout and auto-renew.
	 * @param <T> the result type
	 * @param <E> the checked exception {@code action} may throw
	 * @param key the lock key, such as {@code "invoice:42"}
	 * @param action the guarded code
	 * @return what {@code action} returned
	 * @throws E what {@code action} threw, unchanged
	 * @throws LockAcquisitionException if the lock was not acquired within the acquire timeout ({@code action}
	 * did not run)
	 * @throws LockLostException if {@code action} returned but the lock was lost before the release
	 * @throws DistributedLockException if Redis could not be reached
	 * @throws IllegalArgumentException if the key is blank
	 * @see #execute(LockDefinition, LockCallback)
	 */
	public <T, E extends Throwable> @Nullable T execute(String key, LockCallback<T, E> action) throws E {
		return execute(LockDefinition.of(key), action);
	}

	/**
	 * Like {@link #execute(String, LockCallback)}, for code that returns nothing ({@code () -> { job.run(); }}).
	 * @param <E> the checked exception {@code action} may throw
	 * @param key the lock key
	 * @param action the guarded code
	 * @throws E what {@code action} threw, unchanged
	 * @throws LockAcquisitionException if the lock was not acquired within the acquire timeout
	 * @throws LockLostException if {@code action} returned but the lock was lost before the release
	 * @throws DistributedLockException if Redis could not be reached
	 */
	public <E extends Throwable> void execute(String key, LockRunnable<E> action) throws E {
		execute(LockDefinition.of(key), action);
	}

	/**
	 * Runs {@code action} while holding the lock that {@code definition} describes. The exception of
	 * {@code action} propagates unchanged (not wrapped), and its checked type is this method's: a caller can
	 * catch it. If the lock was lost too, a {@link LockLostException} is added to it as suppressed.
	 * @param <T> the result type
	 * @param <E> the checked exception {@code action} may throw ({@link RuntimeException} when none)
	 * @param definition what to lock and how
	 * @param action the guarded code
	 * @return what {@code action} returned
	 * @throws E what {@code action} threw, unchanged
	 * @throws LockAcquisitionException if the lock was not acquired within the acquire timeout, or the wait
	 * was interrupted (the interrupt flag is set again); {@code action} did not run
	 * @throws LockLostException if {@code action} returned but the lock was lost before the release
	 * @throws IllegalMonitorStateException if the definition asks to upgrade a held read lock to a write lock
	 * @throws DistributedLockException if Redis could not be reached; {@code action} did not run
	 */
	public <T, E extends Throwable> @Nullable T execute(LockDefinition definition, LockCallback<T, E> action)
			throws E {
		return LockedRun.run(List.of(definition), this.acquirer, action, null);
	}

	/**
	 * Like {@link #execute(LockDefinition, LockCallback)}, for code that returns nothing.
	 * @param <E> the checked exception {@code action} may throw
	 * @param definition what to lock and how
	 * @param action the guarded code
	 * @throws E what {@code action} threw, unchanged
	 * @throws LockAcquisitionException if the lock was not acquired within the acquire timeout
	 * @throws LockLostException if {@code action} returned but the lock was lost before the release
	 * @throws DistributedLockException if Redis could not be reached
	 */
	public <E extends Throwable> void execute(LockDefinition definition, LockRunnable<E> action) throws E {
		LockedRun.run(List.of(definition), this.acquirer, LockedRun.returningNull(action), null);
	}

	/**
	 * Like {@link #execute(LockDefinition, LockCallback)}, but when the lock is not acquired within the
	 * definition's acquire timeout, returns what {@code whenNotAcquired} supplies instead of throwing.
	 * @param <T> the result type
	 * @param <E> the checked exception {@code action} may throw
	 * @param definition what to lock and how
	 * @param action the guarded code
	 * @param whenNotAcquired called, on the calling thread, when the lock was not acquired in time
	 * @return what {@code action} returned, or what {@code whenNotAcquired} supplied
	 * @throws E what {@code action} threw, unchanged
	 * @throws LockLostException if {@code action} returned but the lock was lost before the release
	 * @throws DistributedLockException if Redis could not be reached
	 */
	public <T, E extends Throwable> @Nullable T tryExecute(LockDefinition definition, LockCallback<T, E> action,
			Supplier<@Nullable T> whenNotAcquired) throws E {
		return tryExecuteAll(List.of(definition), action, whenNotAcquired);
	}

	/**
	 * Runs {@code action}, which returns nothing, if the lock that {@code definition} describes is acquired
	 * within its acquire timeout.
	 * @param <E> the checked exception {@code action} may throw
	 * @param definition what to lock and how
	 * @param action the guarded code
	 * @return {@code true} if {@code action} ran, {@code false} if the lock was not acquired in time
	 * @throws E what {@code action} threw, unchanged
	 * @throws LockLostException if {@code action} returned but the lock was lost before the release
	 * @throws DistributedLockException if Redis could not be reached
	 */
	public <E extends Throwable> boolean tryExecute(LockDefinition definition, LockRunnable<E> action) throws E {
		return Boolean.TRUE.equals(LockedRun.run(List.of(definition), this.acquirer, () -> {
			action.run();
			return Boolean.TRUE;
		}, () -> Boolean.FALSE));
	}

	/**
	 * Runs {@code action} while holding every lock of {@code definitions} (multi-key). The locks are acquired
	 * in one fixed order (by key), so two calls naming the same keys in any order never deadlock; all share
	 * one acquire deadline measured from the call, and are all released, in reverse order, afterwards. If one
	 * is not acquired, those already acquired are released and {@code action} does not run.
	 * @param <T> the result type
	 * @param <E> the checked exception {@code action} may throw
	 * @param definitions the locks; a definition repeated with the same key and type counts once
	 * @param action the guarded code
	 * @return what {@code action} returned
	 * @throws E what {@code action} threw, unchanged
	 * @throws IllegalArgumentException if {@code definitions} is empty, or names one key with two types
	 * @throws LockAcquisitionException if some lock was not acquired in time
	 * @throws LockLostException if {@code action} returned but some lock was lost before its release
	 * @throws DistributedLockException if Redis could not be reached
	 */
	public <T, E extends Throwable> @Nullable T executeAll(Collection<LockDefinition> definitions,
			LockCallback<T, E> action) throws E {
		return LockedRun.run(definitions, this.acquirer, action, null);
	}

	/**
	 * Like {@link #executeAll(Collection, LockCallback)}, for code that returns nothing.
	 * @param <E> the checked exception {@code action} may throw
	 * @param definitions the locks
	 * @param action the guarded code
	 * @throws E what {@code action} threw, unchanged
	 * @throws IllegalArgumentException if {@code definitions} is empty, or names one key with two types
	 * @throws LockAcquisitionException if some lock was not acquired in time
	 * @throws LockLostException if {@code action} returned but some lock was lost before its release
	 * @throws DistributedLockException if Redis could not be reached
	 */
	public <E extends Throwable> void executeAll(Collection<LockDefinition> definitions, LockRunnable<E> action)
			throws E {
		LockedRun.run(definitions, this.acquirer, LockedRun.returningNull(action), null);
	}

	/**
	 * Like {@link #executeAll(Collection, LockCallback)}, but when some lock is not acquired within its
	 * acquire timeout, returns what {@code whenNotAcquired} supplies instead of throwing.
	 * @param <T> the result type
	 * @param <E> the checked exception {@code action} may throw
	 * @param definitions the locks
	 * @param action the guarded code
	 * @param whenNotAcquired called, on the calling thread, when the locks were not acquired in time
	 * @return what {@code action} returned, or what {@code whenNotAcquired} supplied
	 * @throws E what {@code action} threw, unchanged
	 * @throws LockLostException if {@code action} returned but some lock was lost before its release
	 * @throws DistributedLockException if Redis could not be reached
	 */
	public <T, E extends Throwable> @Nullable T tryExecuteAll(Collection<LockDefinition> definitions,
			LockCallback<T, E> action, Supplier<@Nullable T> whenNotAcquired) throws E {
		return LockedRun.run(definitions, this.acquirer, action,
				Objects.requireNonNull(whenNotAcquired, "whenNotAcquired must not be null"));
	}

	/**
	 * Runs {@code action}, which returns a {@link CompletionStage} (a {@code CompletableFuture}), while holding
	 * the lock that {@code definition} describes, from before {@code action} runs until the stage completes
	 * (normally, exceptionally or cancelled); the release happens on whichever thread completes it. Waits for
	 * the lock on the calling thread (up to the acquire timeout) and runs {@code action} there, so it keeps the
	 * caller's thread-bound context; to wait without a thread, use {@link ReactiveDistributedLockTemplate}.
	 * <p>
	 * The call is an owner of its own, not the calling thread: it does not re-enter the thread's holds, and a
	 * second call from the same thread while the first stage is pending waits like any other owner. Inside
	 * {@code action}, until it returns, {@link LockContext#current()} gives the handle.
	 * @param <T> the stage's result type
	 * @param <E> the checked exception {@code action} may throw
	 * @param definition what to lock and how
	 * @param action starts the work and returns its stage; an exception it throws propagates unchanged (after
	 * the release), as it would without the lock
	 * @return completes after the release: with the stage's value, or with a {@link LockLostException} if the
	 * lock was lost meanwhile; with the stage's failure (a release failure added as suppressed); with a
	 * {@link LockAcquisitionException} if the lock was not acquired in time or the wait was interrupted
	 * ({@code action} did not run), with a {@link DistributedLockException} if Redis could not be reached.
	 * Cancelling it cancels the stage and releases the lock.
	 * @throws E what {@code action} threw before it returned a stage, unchanged
	 */
	public <T, E extends Throwable> CompletableFuture<T> executeAsync(LockDefinition definition,
			LockCallback<? extends @Nullable CompletionStage<T>, E> action) throws E {
		return executeAllAsync(List.of(definition), action);
	}

	/**
	 * Like {@link #executeAsync(LockDefinition, LockCallback)}, holding every lock of {@code definitions}
	 * (multi-key), acquired in one fixed order under one acquire deadline, as in
	 * {@link #executeAll(Collection, LockCallback)}.
	 * @param <T> the stage's result type
	 * @param <E> the checked exception {@code action} may throw
	 * @param definitions the locks
	 * @param action starts the work and returns its stage
	 * @return completes after the release, as for {@link #executeAsync(LockDefinition, LockCallback)}
	 * @throws E what {@code action} threw before it returned a stage, unchanged
	 * @throws IllegalArgumentException if {@code definitions} is empty, or names one key with two types
	 */
	public <T, E extends Throwable> CompletableFuture<T> executeAllAsync(Collection<LockDefinition> definitions,
			LockCallback<? extends @Nullable CompletionStage<T>, E> action) throws E {
		return AsyncLockedRun.run(definitions, this.acquirer, action, null);
	}

	/**
	 * Like {@link #executeAllAsync(Collection, LockCallback)}, but when some lock is not acquired within its
	 * acquire timeout, completes with what {@code whenNotAcquired} supplies instead of failing.
	 * @param <T> the stage's result type
	 * @param <E> the checked exception {@code action} may throw
	 * @param definitions the locks
	 * @param action starts the work and returns its stage
	 * @param whenNotAcquired called, on the calling thread, when the locks were not acquired in time
	 * @return completes after the release, or with what {@code whenNotAcquired} supplied
	 * @throws E what {@code action} threw before it returned a stage, unchanged
	 * @throws IllegalArgumentException if {@code definitions} is empty, or names one key with two types
	 */
	public <T, E extends Throwable> CompletableFuture<T> tryExecuteAllAsync(Collection<LockDefinition> definitions,
			LockCallback<? extends @Nullable CompletionStage<T>, E> action, Supplier<@Nullable T> whenNotAcquired)
			throws E {
		return AsyncLockedRun.run(definitions, this.acquirer, action,
				Objects.requireNonNull(whenNotAcquired, "whenNotAcquired must not be null"));
	}

	/**
	 * Acquires the lock that {@code definition} describes for the calling thread, waiting up to its acquire
	 * timeout, and returns its handle: its {@linkplain LockHandle#fencingToken() fencing token}, and
	 * {@link LockHandle#close()} to release it, from this or any other thread.
	 * <pre class="code">
	 * try (LockHandle lock = lockTemplate.acquire(LockDefinition.of("report"))) {
	 *     store.save(report, lock.fencingToken());
	 * }
	 * </pre>
	 * @param definition what to lock and how
	 * @return the handle of the hold, never {@code null}
	 * @throws LockAcquisitionException if the lock was not acquired within the acquire timeout, or the wait
	 * was interrupted (the interrupt flag is set again)
	 * @throws IllegalMonitorStateException if the definition asks to upgrade a held read lock to a write lock
	 * @throws DistributedLockException if Redis could not be reached; the lock is not held
	 */
	public LockHandle acquire(LockDefinition definition) {
		return this.acquirer.acquire(definition);
	}

	/**
	 * Like {@link #acquire(LockDefinition)}, but returns an empty {@link Optional} when the lock was not
	 * acquired within the definition's acquire timeout.
	 * @param definition what to lock and how
	 * @return the handle of the hold, or empty if not acquired in time
	 * @throws LockAcquisitionException if the wait was interrupted (the interrupt flag is set again)
	 * @throws IllegalMonitorStateException if the definition asks to upgrade a held read lock to a write lock
	 * @throws DistributedLockException if Redis could not be reached; the lock is not held
	 */
	public Optional<LockHandle> tryAcquire(LockDefinition definition) {
		return Optional.ofNullable(this.acquirer.tryAcquire(definition));
	}

	/**
	 * Returns a reentrant {@link Lock} on {@code key}, owned by the thread that locks it, with the default
	 * lease ({@code distributed-lock.lease}) renewed while held.
	 * <p>
	 * The acquire timeout ({@code distributed-lock.acquire-timeout}, {@link #getDefaultAcquireTimeout()}) does
	 * not apply to it: as {@link Lock#lock()}'s contract says (and as Redisson's {@code RLock.lock()} does),
	 * {@link Lock#lock()} waits until it gets the lock, however long, and an interrupt does not end that wait
	 * (the thread's interrupt status is kept); {@link Lock#lockInterruptibly()} waits the same way until it gets
	 * the lock or is interrupted; {@link Lock#tryLock()} tries once; {@link Lock#tryLock(long, TimeUnit)} waits
	 * at most that long. A try that cannot reach Redis is sent again until the wait ends, so {@code lock()} and
	 * {@code lockInterruptibly()} wait out a Redis outage; a failure a new try cannot get past (a script error, a
	 * missing ACL permission), or an outage that outlasts {@code tryLock}'s wait, throws
	 * {@link DistributedLockException}. For a wait bounded by the acquire timeout, use
	 * {@code tryLock(lockTemplate.getDefaultAcquireTimeout().toMillis(), TimeUnit.MILLISECONDS)}, or
	 * {@link #acquire(LockDefinition)} and the {@code execute} methods.
	 * <p>
	 * {@link Lock#unlock()} by a thread that does not hold it throws {@link IllegalMonitorStateException}, an
	 * unlock after the lease was lost throws {@link LockLostException}, and {@link Lock#newCondition()} throws
	 * {@link UnsupportedOperationException}. The view is cheap and holds no state of its own: any number may
	 * exist for one key.
	 * @param key the lock key
	 * @return the lock view, thread-safe
	 * @throws IllegalArgumentException if the key is blank
	 */
	public Lock getLock(String key) {
		return new ClientLock(this.acquirer.client(), key, LockType.REENTRANT, this.acquirer.defaults().lease());
	}

	/**
	 * Returns a {@link ReadWriteLock} on {@code key}: many readers at once, or one writer. Both sides are
	 * reentrant and behave like {@link #getLock(String)}; the write holder may also take the read side
	 * (downgrade), while a reader asking for the write side gets an {@link IllegalMonitorStateException}
	 * (no upgrade).
	 * @param key the lock key
	 * @return the read/write lock view, thread-safe
	 * @throws IllegalArgumentException if the key is blank
	 */
	public ReadWriteLock getReadWriteLock(String key) {
		return ClientReadWriteLock.of(this.acquirer.client(), key, this.acquirer.defaults().lease());
	}

	/**
	 * Returns the reaction to a lost lock of definitions that set none.
	 * @return the default {@link OnLockLoss}
	 */
	public OnLockLoss getDefaultOnLost() {
		return this.acquirer.defaults().onLost();
	}

	/**
	 * Returns the client this template runs on.
	 * @return the lock client
	 */
	public LockClient getClient() {
		return this.acquirer.client();
	}

	/**
	 * Returns the lease of definitions that set none.
	 * @return the default lease
	 */
	public Duration getDefaultLease() {
		return this.acquirer.defaults().lease();
	}

	/**
	 * Returns the acquire timeout of definitions that set none.
	 * @return the default acquire timeout
	 */
	public Duration getDefaultAcquireTimeout() {
		return this.acquirer.defaults().acquireTimeout();
	}

}
