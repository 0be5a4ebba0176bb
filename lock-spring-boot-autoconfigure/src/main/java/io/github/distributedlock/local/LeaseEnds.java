package io.github.distributedlock.local;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The timer of the local store's hard leases: one daemon thread for every store of the JVM, which runs a check
 * when a hold's hard lease ends, so that its loss is told then (its handles' {@code whenLost()}, {@code onLost},
 * the lock observer) and not only when somebody next looks at the key. A cancelled check leaves the timer's
 * queue at once. Thread-safe.
 */
final class LeaseEnds {

	private static final ScheduledThreadPoolExecutor TIMER = new ScheduledThreadPoolExecutor(1, (task) -> {
		Thread thread = new Thread(task, "distributed-lock-local-leases");
		thread.setDaemon(true);
		return thread;
	});

	static {
		TIMER.setRemoveOnCancelPolicy(true);
	}

	private LeaseEnds() {
	}

	/**
	 * Runs {@code check} at {@code deadline}.
	 * @param deadline a {@link System#nanoTime()}
	 * @param check what to run then, on the timer's thread: it must be short
	 * @return what cancels the check
	 */
	static ScheduledFuture<?> at(long deadline, Runnable check) {
		return TIMER.schedule(check, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
	}

}
