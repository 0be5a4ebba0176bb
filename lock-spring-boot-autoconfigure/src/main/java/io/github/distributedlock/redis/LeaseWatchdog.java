package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The watchdog of one client: extends the lease of every held auto-renew lock a third of its lease after its
 * last extension. Holds wait in a schedule ordered by when they are due, so a sweep looks only at the holds due
 * (its work grows with them, not with all the locks held), and locks held for less than a third of their lease
 * cost an insertion and a removal, no round trip. The holds due together are renewed in one pipeline by a
 * {@link LeaseRenewer}, sent without blocking a thread on Lettuce; at most {@link #MAX_BATCHES_IN_FLIGHT}
 * batches wait on Redis at once, one renewal at a time per hold, and each hold is scheduled again when its own
 * reply came: a renewal that is slow (a Redis node that answers late) delays neither the sweeps nor the renewal
 * of other holds, and the holds that come due meanwhile gather in the next batch. A hold whose owner thread
 * ended without releasing it ({@link Hold#isOrphaned()}) is not renewed but handed to the orphan handler.
 * A hold due a little later (up to a quarter of its renewal period) joins the batch of a sweep, so that locks
 * taken a few milliseconds apart come to be renewed together.
 * <p>
 * A hold with a hard lease (no auto-renew) waits in the same schedule until its lease ends: if it was not
 * released by then (nor re-entered, which extends the lease), it is lost, and the loss is told at once (its
 * handles' {@code whenLost()}, {@code onLost}, the observer) instead of at the holder's next look. Thread-safe.
 */
final class LeaseWatchdog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseWatchdog.class);

	/** Renewal batches that may wait on Redis at once. */
	private static final int MAX_BATCHES_IN_FLIGHT = 4;

	private static final Comparator<Hold> BY_DUE_TIME = (a, b) -> {
		int due = Long.compare(a.scheduledAt() - b.scheduledAt(), 0);
		return (due != 0) ? due : Long.compare(a.seq(), b.seq());
	};

	/**
	 * The held auto-renew holds that are not being renewed, and the held hard-lease holds, the first due first.
	 */
	private final ConcurrentSkipListSet<Hold> schedule = new ConcurrentSkipListSet<>(BY_DUE_TIME);

	private final LeaseRenewer renewer;

	private final LeaseEndCheck endedLeases;

	private final ScheduledExecutorService timer;

	/**
	 * Sends the renewal batches (and releases orphans): a blocking client waits on its threads, an asynchronous
	 * one only hands the batch to Lettuce there.
	 */
	private final ThreadPoolExecutor renewals;

	/** Releases an orphaned hold; set once, before the first hold is scheduled. */
	private volatile Function<Hold, CompletableFuture<Void>> orphans = (hold) -> CompletableFuture.completedFuture(null);

	/** {@link System#nanoTime()} of the next scheduled sweep, {@code Long.MAX_VALUE} if none. */
	private final AtomicLong nextSweep = new AtomicLong(Long.MAX_VALUE);

	/** Renewal batches started and not finished. */
	private final AtomicInteger inFlight = new AtomicInteger();

	private volatile boolean closed;

	/**
	 * @param threadName prefix of its threads' names
	 * @param renewals renews holds in Redis
	 * @param events tells the observer and the log of losses and failed renewals
	 * @param timer runs the sweeps
	 */
	LeaseWatchdog(String threadName, LeaseRenewalScripts renewals, HoldEvents events, ScheduledExecutorService timer) {
		this.renewer = new LeaseRenewer(renewals, events, new LeaseRenewalWatch(timer, events));
		this.endedLeases = new LeaseEndCheck(events);
		this.timer = timer;
		this.renewals = new ThreadPoolExecutor(MAX_BATCHES_IN_FLIGHT, MAX_BATCHES_IN_FLIGHT, 10, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), daemonThreads(threadName + "-renewal"));
		this.renewals.allowCoreThreadTimeOut(true);
	}

	/**
	 * Sets what releases a hold whose owner thread ended; runs on a renewal thread.
	 * @param orphans the orphan handler
	 */
	void setOrphanHandler(Function<Hold, CompletableFuture<Void>> orphans) {
		this.orphans = orphans;
	}

	static ThreadFactory daemonThreads(String name) {
		return (task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * Schedules a new (or renewed) auto-renew hold for its next renewal, or a hard-lease hold for the end of its
	 * lease (see {@link Hold#scheduleNext()}).
	 * @param hold the hold, not in the schedule now
	 */
	void schedule(Hold hold) {
		long at = hold.scheduleNext();
		this.schedule.add(hold);
		sweepBy(at);
	}

	/**
	 * Takes a released hold out of the schedule (a hold being renewed is not in it, and is not scheduled again).
	 * @param hold the hold
	 */
	void unschedule(Hold hold) {
		this.schedule.remove(hold);
	}

	/**
	 * Makes sure a sweep runs by {@code due} ({@link System#nanoTime()}): schedules one only if none is
	 * scheduled early enough, so a steady stream of acquisitions schedules nothing.
	 */
	private void sweepBy(long due) {
		while (true) {
			long scheduled = this.nextSweep.get();
			if (scheduled - due <= 0) {
				return;
			}
			if (this.nextSweep.compareAndSet(scheduled, due)) {
				try {
					this.timer.schedule(() -> sweep(due), Math.max(0, due - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
				catch (RejectedExecutionException ex) {
					// closed: nothing is renewed any more
				}
				return;
			}
		}
	}

	/**
	 * Takes the holds that are due out of the schedule and renews them, all in one batch (one pipeline), and
	 * schedules itself for the next hold due. A sweep that an earlier one superseded (scheduled for
	 * {@code scheduledFor}, no longer the next) does nothing: no duplicate sweeps. While
	 * {@link #MAX_BATCHES_IN_FLIGHT} batches are in flight it takes nothing: the batch that ends next sweeps.
	 */
	private void sweep(long scheduledFor) {
		if (!this.nextSweep.compareAndSet(scheduledFor, Long.MAX_VALUE) || this.closed) {
			return;
		}
		if (this.inFlight.get() >= MAX_BATCHES_IN_FLIGHT) {
			// the holds due meanwhile cannot be renewed: those whose lease ends are lost then (see LeaseEndCheck)
			long next = this.endedLeases.loseDueWhileStuck(this.schedule, this::leaseEnded);
			if (next != Long.MAX_VALUE) {
				sweepBy(next);
			}
			return;
		}
		List<Hold> due = new ArrayList<>();
		List<Hold> leasesEnded = new ArrayList<>(0);
		long now = System.nanoTime();
		Hold first;
		while ((first = this.schedule.pollFirst()) != null) {
			// renewed a little early (a quarter of its period at most) when that joins it to this batch: the
			// holds of a batch are renewed at one moment, so they stay due together, in one script; a retry
			// after a failure waits its turn (see LeaseRenewer#retryGapNanos), and a hard lease its end
			long early = (first.isRetrying() || !first.autoRenew()) ? 0 : first.renewalPeriodNanos() / 4;
			if (first.scheduledAt() - now > early) {
				this.schedule.add(first);
				break;
			}
			if (!first.autoRenew()) {
				leasesEnded.add(first);
			}
			else if (first.startRenewal()) {
				due.add(first);
			}
		}
		for (Hold hold : leasesEnded) {
			leaseEnded(hold);
		}
		if (!due.isEmpty()) {
			this.inFlight.incrementAndGet();
			try {
				this.renewals.execute(() -> renewOrRelease(due));
			}
			catch (RejectedExecutionException ex) {
				// closed
				return;
			}
		}
		if (first != null) {
			sweepBy(first.scheduledAt());
		}
	}

	/**
	 * Releases the orphans among the due holds, and renews the others (several in one pipeline); each is
	 * scheduled again as soon as its own renewal ended.
	 */
	private void renewOrRelease(List<Hold> due) {
		List<Hold> renewed = new ArrayList<>(due.size());
		List<CompletableFuture<?>> work = new ArrayList<>(2);
		for (Hold hold : due) {
			if (hold.isOrphaned()) {
				work.add(releaseOrphan(hold).whenComplete((done, ex) -> renewalEnded(hold)));
			}
			else {
				renewed.add(hold);
			}
		}
		if (!renewed.isEmpty()) {
			work.add(this.renewer.renew(renewed, this::renewalEnded));
		}
		CompletableFuture.allOf(work.toArray(CompletableFuture[]::new)).whenComplete((done, ex) -> {
			this.inFlight.decrementAndGet();
			// a sweep may have left due holds behind while this batch was in flight
			if (!this.closed) {
				sweepBy(System.nanoTime());
			}
		});
	}

	/** A hard lease's end: the hold waits for its new end if a late re-entry extended it. */
	private void leaseEnded(Hold hold) {
		if (this.endedLeases.hardLeaseEnded(hold)) {
			schedule(hold);
		}
	}

	private void renewalEnded(Hold hold) {
		if (hold.endRenewal() && !this.closed) {
			schedule(hold);
		}
	}

	private CompletableFuture<Void> releaseOrphan(Hold hold) {
		CompletableFuture<Void> released;
		try {
			released = this.orphans.apply(hold);
		}
		catch (RuntimeException ex) {
			released = CompletableFuture.failedFuture(ex);
		}
		return released.exceptionally((ex) -> {
			logger.warn("Could not release lock '" + hold.key() + "' of an ended thread; it ends with its lease",
					ScriptExecutor.unwrap(ex));
			return null;
		});
	}

	/**
	 * Returns the renewal threads as an executor that refuses tasks once closed
	 * ({@link RejectedExecutionException}), for work whose caller must learn that it will not run.
	 * @return the executor
	 */
	Executor executor() {
		return this.renewals;
	}

	/**
	 * Runs a housekeeping round trip on a renewal thread, off the caller's; dropped once closed.
	 * @param task the task
	 */
	void runInBackground(Runnable task) {
		try {
			this.renewals.execute(task);
		}
		catch (RejectedExecutionException ex) {
			logger.debug("Closed: not running " + task);
		}
	}

	/**
	 * Stops renewing: no sweep or renewal starts any more.
	 */
	@Override
	public void close() {
		this.closed = true;
		this.renewals.shutdownNow();
	}

}
