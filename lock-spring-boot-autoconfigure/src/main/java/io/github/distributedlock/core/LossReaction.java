package io.github.distributedlock.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

import io.github.distributedlock.annotation.OnLockLoss;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What the running work does when one of its locks is lost with {@link OnLockLoss#INTERRUPT}, for the templates:
 * a blocking call's thread is interrupted once, while it still runs the locked work and never after; an
 * asynchronous call's future fails with the {@link LockLostException}. Both learn of the loss from
 * {@link LockHandle#whenLost()}, so no round trip is made and any store works. Thread-safe.
 */
final class LossReaction {

	private static final Log logger = LogFactory.getLog(LossReaction.class);

	/** The reaction of work none of whose locks interrupts: does nothing. */
	private static final LossReaction NONE = new LossReaction(null);

	/** The thread to interrupt; {@code null} for {@link #NONE}. */
	private final Thread thread;

	/** Whether the locked work still runs on {@link #thread}. Guarded by this object's monitor. */
	private boolean running = true;

	/** Whether this reaction interrupted {@link #thread}. Guarded by this object's monitor. */
	private boolean interrupted;

	/** The watchers of the locks this reaction watches; set before it is returned, on the working thread. */
	private List<Watchers> joined = List.of();

	private LossReaction(Thread thread) {
		this.thread = thread;
	}

	/**
	 * Returns the handles among {@code held} whose definition asks to stop the work on a loss.
	 * @param ordered the definitions, in the order their handles were acquired
	 * @param held the handles, one per definition
	 * @param interruptsOnLoss whether a definition (with the template's default) says {@link OnLockLoss#INTERRUPT}
	 * @return those handles, often none
	 */
	static List<LockHandle> watched(List<LockDefinition> ordered, List<LockHandle> held,
			Predicate<LockDefinition> interruptsOnLoss) {
		List<LockHandle> watched = null;
		for (int i = 0; i < held.size(); i++) {
			if (interruptsOnLoss.test(ordered.get(i))) {
				if (watched == null) {
					watched = new ArrayList<>(held.size());
				}
				watched.add(held.get(i));
			}
		}
		return (watched != null) ? watched : List.of();
	}

	/**
	 * Starts watching the locks of blocking work that runs on the calling thread: the first loss among them
	 * interrupts it, once, unless {@link #end()} came first.
	 * @param watched the handles whose loss stops the work
	 * @return the reaction; end it when the work ends, before its locks are released
	 */
	static LossReaction interruptOnLoss(List<LockHandle> watched) {
		if (watched.isEmpty()) {
			return NONE;
		}
		LossReaction reaction = new LossReaction(Thread.currentThread());
		List<Watchers> joined = new ArrayList<>(watched.size());
		for (LockHandle handle : watched) {
			CompletionStage<LockLostException> stage = handle.whenLost();
			joined.add(Watchers.of(stage).join(reaction, stage));
		}
		reaction.joined = joined;
		return reaction;
	}

	/**
	 * Ends the work: a loss learnt from now on interrupts nothing. Clears the interrupt this reaction made, so
	 * that it does not reach what the thread does next (the release then throws the {@link LockLostException}).
	 * Called on the working thread.
	 */
	void end() {
		if (this == NONE) {
			return;
		}
		synchronized (this) {
			this.running = false;
			if (this.interrupted) {
				Thread.interrupted();
			}
		}
		for (Watchers watchers : this.joined) {
			watchers.leave(this);
		}
	}

	/** Interrupts the working thread if it still runs the work; under the monitor, so never after {@link #end()}. */
	private synchronized void lost(LockLostException loss) {
		if (this.running && !this.interrupted) {
			this.interrupted = true;
			if (logger.isDebugEnabled()) {
				logger.debug("Interrupting thread '" + this.thread.getName() + "' (onLost = INTERRUPT): "
						+ loss.getMessage());
			}
			this.thread.interrupt();
		}
	}

	/**
	 * The blocking reactions that watch one hold's loss now. One per {@code whenLost()} stage (a store hands out the
	 * same stage for every handle of a hold, re-entries included), registered on it once: a reaction joins while its
	 * work runs and leaves when it ends, so work that re-enters a long-held lock again and again leaves nothing
	 * behind on that lock. Kept while the stage is reachable (weakly keyed).
	 */
	private static final class Watchers {

		private static final Map<CompletionStage<LockLostException>, Watchers> BY_STAGE = Collections
			.synchronizedMap(new WeakHashMap<>());

		private final Set<LossReaction> reactions = ConcurrentHashMap.newKeySet();

		private final AtomicBoolean registered = new AtomicBoolean();

		private volatile @Nullable LockLostException loss;

		static Watchers of(CompletionStage<LockLostException> stage) {
			return BY_STAGE.computeIfAbsent(stage, (key) -> new Watchers());
		}

		/**
		 * Adds a reaction, and registers on the stage the first time. A loss told before the reaction joined
		 * reaches it at once: {@link #lost} records the loss before it looks at the reactions.
		 */
		Watchers join(LossReaction reaction, CompletionStage<LockLostException> stage) {
			this.reactions.add(reaction);
			if (this.registered.compareAndSet(false, true)) {
				stage.thenAccept(this::lost);
			}
			LockLostException known = this.loss;
			if (known != null) {
				reaction.lost(known);
			}
			return this;
		}

		void leave(LossReaction reaction) {
			this.reactions.remove(reaction);
		}

		private void lost(LockLostException loss) {
			this.loss = loss;
			for (LossReaction reaction : this.reactions) {
				reaction.lost(loss);
			}
		}

	}

	/**
	 * Fails asynchronous work when one of its watched locks is lost: completes {@code result} with the
	 * {@link LockLostException} (on a pool thread), cancels the work's own stage, and releases the locks.
	 * @param watched the handles whose loss fails the work
	 * @param result the future the caller got
	 * @param stage the work's own stage
	 * @param release releases the locks (each handle once, whoever comes first)
	 */
	static <T> void failOnLoss(List<LockHandle> watched, CompletableFuture<T> result, CompletionStage<T> stage,
			Runnable release) {
		for (LockHandle handle : watched) {
			handle.whenLost().thenAcceptAsync((loss) -> {
				if (result.completeExceptionally(loss)) {
					cancel(stage);
					release.run();
				}
			}, ForkJoinPool.commonPool());
		}
	}

	private static void cancel(CompletionStage<?> stage) {
		try {
			stage.toCompletableFuture().cancel(true);
		}
		catch (UnsupportedOperationException ex) {
			// a stage that cannot be cancelled runs on; its result is ignored
		}
	}

}
