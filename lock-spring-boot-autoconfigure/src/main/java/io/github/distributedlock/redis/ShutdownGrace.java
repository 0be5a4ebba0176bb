package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The grace period of a client's shutdown: waits until the locks that running threads still hold are released
 * by those threads, or until the grace period ends, while the watchdog goes on renewing them. So a shutdown never
 * frees a lock under a holder that is still working, nor leaves it to expire under it. Holds known to be lost,
 * and orphaned holds (their thread ended: the watchdog releases them), are not waited for.
 * <p>
 * Acquisitions under way are waited for too: work that asked for a lock before the shutdown (a {@code @Scheduled}
 * run that fired as the context began to close; with {@code await-termination}, schedulers stop only after
 * every lifecycle phase) gets it or gives up as it would have, and then runs and releases like any holder,
 * instead of failing because the client closed under its request. Thread-safe.
 */
final class ShutdownGrace {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	/** Longest wait between two looks at the holds: a hold can become lost or orphaned without a signal. */
	private static final long RECHECK_MILLIS = 200;

	private final Collection<Hold> holds;

	private final Collection<Acquisition> acquisitions;

	private volatile boolean waiting;

	/** Releases whose hold is gone but whose Redis round trip has not ended: the factory must outlive them. */
	private final AtomicInteger releasesInFlight = new AtomicInteger();

	/**
	 * @param holds the client's holds, a live view
	 * @param acquisitions the client's acquisitions under way, a live view
	 */
	ShutdownGrace(Collection<Hold> holds, Collection<Acquisition> acquisitions) {
		this.holds = holds;
		this.acquisitions = acquisitions;
	}

	/** Called before a released hold leaves the client's holds, while its Redis release is still to come. */
	void releaseStarted() {
		this.releasesInFlight.incrementAndGet();
	}

	/** Called when a release's round trip ended, however: wakes the wait if there is one. */
	void releaseEnded() {
		this.releasesInFlight.decrementAndGet();
		if (this.waiting) {
			synchronized (this) {
				notifyAll();
			}
		}
	}

	/**
	 * Waits until no running thread holds a lock of the client or is acquiring one, or until {@code timeout}
	 * passed.
	 * @return the holds still held when it ended (empty when all were released in time)
	 */
	List<Hold> await(Duration timeout) {
		long start = System.nanoTime();
		long deadline = start + timeout.toNanos();
		List<Hold> held = stillHeld();
		if (held.isEmpty() && this.acquisitions.isEmpty() && this.releasesInFlight.get() == 0) {
			return held;
		}
		logger.info("Shutdown: waiting up to " + timeout.toMillis() + " ms for " + held.size()
				+ " lock(s) to be released by their holders, renewing them meanwhile"
				+ (held.isEmpty() ? "" : ": " + describe(held)) + acquiring());
		this.waiting = true;
		boolean interrupted = false;
		try {
			synchronized (this) {
				while (!(held = stillHeld()).isEmpty() || !this.acquisitions.isEmpty()
						|| this.releasesInFlight.get() > 0) {
					long remaining = deadline - System.nanoTime();
					if (remaining <= 0) {
						break;
					}
					try {
						wait(Math.min(RECHECK_MILLIS, TimeUnit.NANOSECONDS.toMillis(remaining) + 1));
					}
					catch (InterruptedException ex) {
						interrupted = true;
						break;
					}
				}
			}
		}
		finally {
			this.waiting = false;
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
		if (held.isEmpty()) {
			logger.info("Shutdown: every lock was released by its holder, after "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
		}
		return held;
	}

	/** Names the acquisitions under way, for the log; empty if none is. */
	private String acquiring() {
		List<String> under = new ArrayList<>();
		for (Acquisition acquisition : this.acquisitions) {
			under.add(acquisition.describe());
		}
		return under.isEmpty() ? "" : "; and for " + under.size() + " acquisition(s) under way to get their lock or "
				+ "give up: " + String.join(", ", under);
	}

	private List<Hold> stillHeld() {
		List<Hold> held = new ArrayList<>();
		for (Hold hold : this.holds) {
			if (!hold.isReleased() && !hold.isKnownLost() && !hold.isOrphaned()) {
				held.add(hold);
			}
		}
		return held;
	}

	/** Names each hold's lock and holder thread, for the log. */
	static String describe(Collection<Hold> holds) {
		return holds.stream().map(ShutdownGrace::describe).collect(Collectors.joining(", "));
	}

	static String describe(Hold hold) {
		return "'" + hold.key() + "' (" + HoldEvents.typeOf(hold) + ", held by " + hold.holder() + ")";
	}

}
