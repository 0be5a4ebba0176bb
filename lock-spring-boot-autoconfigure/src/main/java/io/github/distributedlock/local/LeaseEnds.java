package io.github.distributedlock.local;

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
	 * Watches a new hold's hard lease (none for an auto-renewed hold), so that its loss is told when it ends.
	 * Called under the key's mutex.
	 * @param key the key's state the hold is part of
	 * @param hold the new hold
	 * @return the hold
	 */
	static LocalHold watch(LocalKey key, LocalHold hold) {
		if (hold.expires()) {
			hold.watchLeaseEnd(TIMER.schedule(() -> ended(key, hold), Math.max(0, hold.deadline() - System.nanoTime()),
					TimeUnit.NANOSECONDS));
		}
		return hold;
	}

	/**
	 * The end of a hold's hard lease, on the timer's thread: an unreleased hold whose lease ended is lost (marked
	 * and removed, as anybody's next look at the key would); one whose lease a re-entry extended is watched until
	 * the new end.
	 */
	private static void ended(LocalKey key, LocalHold hold) {
		key.mutex.lock();
		try {
			if (!hold.inState() || hold.isReleased()) {
				return;
			}
			long now = System.nanoTime();
			if (hold.endedAt(now)) {
				key.purge(now);
			}
			else {
				watch(key, hold);
			}
		}
		finally {
			key.mutex.unlock();
		}
	}

}
