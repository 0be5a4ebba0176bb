package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The watchdog of one client: extends the lease of every held auto-renew lock a third of its lease after its
 * last extension. One sweep at a time runs on a scheduler thread of its own, and only when some hold is due,
 * so locks held for less than a third of their lease cost no scheduling. The renewals themselves run on a
 * small pool, the holds due together in one pipeline, one renewal at a time per hold: a renewal that is slow
 * (a Redis node that answers late) delays neither the sweeps nor the renewal of holds due later. If an extension finds the lock gone, or cannot reach Redis for longer than the lease, the hold
 * is marked lost. A hold whose owner thread ended without releasing it ({@link Hold#isOrphaned()}) is not
 * renewed but handed to the orphan handler. Thread-safe.
 */
final class LeaseWatchdog implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseWatchdog.class);

	/** Renewal batches that may wait on Redis at once. */
	private static final int RENEWAL_THREADS = 4;

	private final Collection<Hold> holds;

	private final LockCommands commands;

	private final Consumer<Hold> orphans;

	/** Tells the observer and the log of losses and failed renewals. */
	private final HoldEvents events;

	private final ScheduledThreadPoolExecutor sweeper;

	private final ThreadPoolExecutor renewals;

	/** {@link System#nanoTime()} of the next scheduled sweep, {@code Long.MAX_VALUE} if none. */
	private final AtomicLong nextSweep = new AtomicLong(Long.MAX_VALUE);

	/** Renewal batches started and not finished. */
	private final AtomicInteger inFlight = new AtomicInteger();

	/**
	 * Set by a sweep that left due holds for later because {@link #RENEWAL_THREADS} batches were in flight; the
	 * next batch to finish sweeps again at once. So the holds that come due while Redis is slow gather in the
	 * next batch (one round trip) instead of queueing one small batch each.
	 */
	private volatile boolean backlog;

	private volatile boolean closed;

	/**
	 * @param threadName prefix of its threads' names
	 * @param holds the client's holds, a live view
	 * @param commands renews holds in Redis
	 * @param orphans releases a hold whose owner thread ended; runs on a renewal thread
	 */
	LeaseWatchdog(String threadName, Collection<Hold> holds, LockCommands commands, Consumer<Hold> orphans,
			HoldEvents events) {
		this.holds = holds;
		this.events = events;
		this.commands = commands;
		this.orphans = orphans;
		this.sweeper = new ScheduledThreadPoolExecutor(1, daemonThreads(threadName + "-watchdog"));
		this.sweeper.setRemoveOnCancelPolicy(true);
		this.renewals = new ThreadPoolExecutor(RENEWAL_THREADS, RENEWAL_THREADS, 10, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), daemonThreads(threadName + "-renewal"));
		this.renewals.allowCoreThreadTimeOut(true);
	}

	static ThreadFactory daemonThreads(String name) {
		return (task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * Makes sure a sweep runs by {@code due} ({@link System#nanoTime()}): schedules one only if none is
	 * scheduled early enough, so a steady stream of acquisitions schedules nothing.
	 */
	void sweepBy(long due) {
		while (true) {
			long scheduled = this.nextSweep.get();
			if (scheduled - due <= 0) {
				return;
			}
			if (this.nextSweep.compareAndSet(scheduled, due)) {
				try {
					this.sweeper.schedule(() -> sweep(due), Math.max(0, due - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
				catch (RejectedExecutionException ex) {
					// closed: nothing is renewed any more
				}
				return;
			}
		}
	}

	/**
	 * Starts the renewal of the holds that are due, all in one task (one pipeline), and schedules itself for the
	 * next hold due. Holds being renewed schedule their next sweep when their renewal ends, so a renewal that
	 * is slow holds up neither the sweeps nor the renewals of other holds. A sweep that an earlier one
	 * superseded (scheduled for {@code scheduledFor}, no longer the next) does nothing: no duplicate sweeps.
	 */
	private void sweep(long scheduledFor) {
		if (!this.nextSweep.compareAndSet(scheduledFor, Long.MAX_VALUE)) {
			return;
		}
		long next = Long.MAX_VALUE;
		List<Hold> due = new ArrayList<>();
		boolean saturated = this.inFlight.get() >= RENEWAL_THREADS;
		try {
			for (Hold hold : this.holds) {
				if (!hold.autoRenew || hold.released || hold.lostReason != null || hold.renewing) {
					continue;
				}
				boolean isDue = System.nanoTime() - hold.nextRenewal >= 0;
				if (isDue && saturated) {
					this.backlog = true;
				}
				else if (isDue && hold.startRenewal()) {
					due.add(hold);
				}
				else if (hold.nextRenewal - next < 0) {
					next = hold.nextRenewal;
				}
			}
			if (saturated && this.backlog && this.inFlight.get() < RENEWAL_THREADS) {
				// a batch finished meanwhile, maybe before it could see the backlog
				next = System.nanoTime();
			}
			if (!due.isEmpty()) {
				this.inFlight.incrementAndGet();
				this.renewals.execute(() -> renewOrRelease(due));
			}
		}
		catch (RejectedExecutionException ex) {
			// closed
		}
		finally {
			if (next != Long.MAX_VALUE && !this.closed) {
				sweepBy(next);
			}
		}
	}

	/** Releases the orphans among the due holds, and renews the others (several in one pipeline). */
	private void renewOrRelease(List<Hold> due) {
		try {
			List<Hold> renewed = new ArrayList<>(due.size());
			for (Hold hold : due) {
				if (hold.isOrphaned()) {
					releaseOrphan(hold);
				}
				else {
					renewed.add(hold);
				}
			}
			renew(renewed);
		}
		finally {
			this.inFlight.decrementAndGet();
			long next = Long.MAX_VALUE;
			if (this.backlog) {
				this.backlog = false;
				next = System.nanoTime();
			}
			for (Hold hold : due) {
				hold.renewing = false;
				if (!hold.released && hold.lostReason == null && hold.nextRenewal - next < 0) {
					next = hold.nextRenewal;
				}
			}
			if (next != Long.MAX_VALUE && !this.closed) {
				sweepBy(next);
			}
		}
	}

	private void releaseOrphan(Hold hold) {
		try {
			this.orphans.accept(hold);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release lock '" + hold.id.key() + "' of an ended thread; it ends with its lease", ex);
		}
	}

	/**
	 * Renews holds: one alone with a plain round trip, several in one pipeline (one round trip each took 10 s
	 * for 1,000 locks at 10 ms a round trip, far past 1 s leases).
	 */
	private void renew(List<Hold> due) {
		if (due.size() == 1) {
			Hold hold = due.get(0);
			long sentAt = System.nanoTime();
			try {
				renewed(hold, this.commands.renew(hold), sentAt);
			}
			catch (RuntimeException ex) {
				renewalFailed(hold, ex);
			}
		}
		else if (!due.isEmpty()) {
			long sentAt = System.nanoTime();
			List<ScriptExecutor.Outcome> outcomes = this.commands.renewAll(due);
			for (int i = 0; i < due.size(); i++) {
				ScriptExecutor.Outcome outcome = outcomes.get(i);
				if (outcome.failure() != null) {
					renewalFailed(due.get(i), outcome.failure());
				}
				else {
					renewed(due.get(i), outcome.result(), sentAt);
				}
			}
		}
	}

	/** Records what a renewal sent at {@code sentAt} returned: 1 renewed, else the lock is gone. */
	private void renewed(Hold hold, long result, long sentAt) {
		if (result == 1) {
			hold.confirmedUntil = sentAt + TimeUnit.MILLISECONDS.toNanos(hold.leaseMillis);
			hold.nextRenewal = sentAt + hold.renewalPeriodNanos();
		}
		else if (!hold.released) {
			hold.markLost("the watchdog found it gone at renewal (it expired or was deleted in Redis)");
			this.events.lost(hold);
		}
	}

	private void renewalFailed(Hold hold, RuntimeException ex) {
		this.events.renewalFailed(hold);
		if (System.nanoTime() - hold.confirmedUntil >= 0) {
			hold.markLost("it could not be renewed for longer than its lease of " + hold.leaseMillis + " ms ("
					+ ex.getMessage() + ")");
			this.events.lost(hold);
		}
		else {
			// try again after another third of what is left, not at once: Redis may take a while to return
			hold.nextRenewal = System.nanoTime() + Math.max(TimeUnit.MILLISECONDS.toNanos(1),
					(hold.confirmedUntil - System.nanoTime()) / 3);
			if (logger.isWarnEnabled()) {
				logger.warn("Could not renew lock '" + hold.id.key() + "'; retrying while its lease lasts", ex);
			}
		}
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
		this.sweeper.shutdownNow();
		this.renewals.shutdownNow();
	}

}
