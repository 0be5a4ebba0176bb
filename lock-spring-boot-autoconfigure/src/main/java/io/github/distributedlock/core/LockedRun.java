package io.github.distributedlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Runs code under one or more locks for {@link DistributedLockTemplate}: acquires them in one fixed order
 * (by key) under one deadline, so calls naming the same keys in any order never deadlock; makes their
 * handles current in the {@link LockContext}; releases them in reverse order, every one even when one
 * fails. Stateless.
 */
final class LockedRun {

	private LockedRun() {
	}

	/**
	 * Acquires every lock of {@code definitions} in one fixed order under one acquire deadline, runs
	 * {@code action} with their handles in the {@link LockContext}, and releases them in reverse order.
	 * The loss of a lock whose definition asks so ({@link LockAcquirer#interruptsOnLoss}) interrupts the calling
	 * thread, once, while {@code action} runs ({@link LossReaction}).
	 * @param whenNotAcquired supplies the result when some lock is not acquired in time, or {@code null} to
	 * throw a {@link LockAcquisitionException} then
	 */
	static <T> @Nullable T run(Collection<LockDefinition> definitions, LockAcquirer acquirer,
			LockCallback<T, ?> action, @Nullable Supplier<@Nullable T> whenNotAcquired) {
		Objects.requireNonNull(action, "action must not be null");
		List<LockDefinition> ordered = inLockingOrder(definitions);
		List<LockHandle> held = new ArrayList<>(ordered.size());
		long start = System.nanoTime();
		for (LockDefinition definition : ordered) {
			LockHandle handle;
			try {
				handle = acquirer.acquire(definition, start);
			}
			catch (RuntimeException ex) {
				throw releaseAfterFailure(held, ex);
			}
			if (handle == null) {
				LockAcquisitionException notAcquired = new LockAcquisitionException(definition.key(), since(start));
				releaseAfterFailure(held, notAcquired);
				if (whenNotAcquired != null) {
					return whenNotAcquired.get();
				}
				throw notAcquired;
			}
			held.add(handle);
		}
		T result;
		LossReaction onLoss = LossReaction.interruptOnLoss(LossReaction.watched(ordered, held, acquirer::interruptsOnLoss));
		LockContext.push(held);
		try {
			result = action.doInLock();
		}
		catch (Throwable ex) {
			onLoss.end();
			LockContext.pop(held.size());
			throw sneakyThrow(releaseAfterFailure(held, ex));
		}
		onLoss.end();
		LockContext.pop(held.size());
		RuntimeException releaseFailure = releaseAll(held, null);
		if (releaseFailure != null) {
			throw releaseFailure;
		}
		return result;
	}

	/**
	 * Releases everything held after {@code failure}, attaching release failures to it as suppressed.
	 */
	private static <E extends Throwable> E releaseAfterFailure(List<LockHandle> held, E failure) {
		releaseAll(held, failure);
		return failure;
	}

	/**
	 * Releases in reverse acquisition order, every lock even when one fails. With a {@code primary} failure
	 * the release failures are added to it and {@code null} is returned; otherwise the first release failure
	 * is returned with the others suppressed.
	 */
	private static @Nullable RuntimeException releaseAll(List<LockHandle> held, @Nullable Throwable primary) {
		RuntimeException first = null;
		for (int i = held.size() - 1; i >= 0; i--) {
			try {
				held.get(i).close();
			}
			catch (RuntimeException ex) {
				if (primary != null) {
					primary.addSuppressed(ex);
				}
				else if (first == null) {
					first = ex;
				}
				else {
					first.addSuppressed(ex);
				}
			}
		}
		return first;
	}

	static List<LockDefinition> inLockingOrder(Collection<LockDefinition> definitions) {
		Objects.requireNonNull(definitions, "definitions must not be null");
		if (definitions.isEmpty()) {
			throw new IllegalArgumentException("At least one lock definition is required");
		}
		if (definitions.size() == 1) {
			return List.copyOf(definitions);
		}
		Map<String, LockDefinition> byKey = new LinkedHashMap<>();
		for (LockDefinition definition : definitions) {
			LockDefinition previous = byKey.putIfAbsent(definition.key(), definition);
			if (previous != null && previous.type() != definition.type()) {
				throw new IllegalArgumentException("Lock key '" + definition.key() + "' is named twice, as "
						+ previous.type() + " and as " + definition.type());
			}
		}
		List<LockDefinition> ordered = new ArrayList<>(byKey.values());
		// a total order over keys: every caller acquires overlapping key sets in the same sequence
		ordered.sort(Comparator.comparing(LockDefinition::key));
		return ordered;
	}

	/** The code that returns nothing as a callback that returns {@code null}. */
	static <E extends Throwable> LockCallback<@Nullable Object, E> returningNull(LockRunnable<E> action) {
		Objects.requireNonNull(action, "action must not be null");
		return () -> {
			action.run();
			return null;
		};
	}

	/** Time since a {@link System#nanoTime()}. */
	static Duration since(long startNanos) {
		return Duration.ofNanos(System.nanoTime() - startNanos);
	}

	@SuppressWarnings("unchecked")
	static <E extends Throwable> RuntimeException sneakyThrow(Throwable ex) throws E {
		// LockCallback's checked exceptions pass through unwrapped, as documented on execute
		throw (E) ex;
	}

}
