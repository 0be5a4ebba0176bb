package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The graceful stop of a Redlock client, in its lifecycle phase: waits until no owner holds a lock of the client
 * or is acquiring one, or until the shutdown timeout ends, while renewal goes on; so a shutdown neither frees a
 * lock under work that still runs nor lets it expire under it, and a call that asked for a lock before the
 * shutdown (a {@code @Scheduled} run that fired as the context began to close) gets it or gives up as it would
 * have. The client stays open afterwards, until its bean is destroyed: its connections are its own, not the
 * application's Redis connection factory, so work still running then can still release; what is held at its
 * close is released and told lost. The same rules as the Redis store's (see {@code docs/semantics.md},
 * Shutdown). Thread-safe.
 */
final class RedlockShutdownGrace {

	private static final Log logger = LogFactory.getLog(RedlockLockClient.class);

	/** How often the wait looks at the holds and acquisitions again, in milliseconds. */
	private static final long RECHECK_MILLIS = 20;

	private final Collection<RedlockHold> holds;

	private final AtomicInteger acquiring = new AtomicInteger();

	/**
	 * @param holds the client's holds, a live view
	 */
	RedlockShutdownGrace(Collection<RedlockHold> holds) {
		this.holds = holds;
	}

	/**
	 * Counts an acquisition as under way until it ends, however it ends.
	 * @param acquisition the acquisition's result
	 * @return {@code acquisition}
	 */
	<T> CompletableFuture<T> track(CompletableFuture<T> acquisition) {
		this.acquiring.incrementAndGet();
		acquisition.whenComplete((result, ex) -> this.acquiring.decrementAndGet());
		return acquisition;
	}

	/**
	 * Waits until no owner holds a lock of the client (but holds known to be lost) and no acquisition is under
	 * way, or until {@code timeout} passed, or the calling thread is interrupted (its flag is kept).
	 * @param timeout the longest wait
	 */
	void await(Duration timeout) {
		long start = System.nanoTime();
		long deadline = start + timeout.toNanos();
		List<RedlockHold> held = stillHeld();
		if (held.isEmpty() && this.acquiring.get() == 0) {
			return;
		}
		logger.info("Shutdown: waiting up to " + timeout.toMillis() + " ms for " + held.size()
				+ " Redlock lock(s) to be released by their holders, renewing them meanwhile"
				+ (held.isEmpty() ? "" : ": " + describe(held)) + "; and for " + this.acquiring.get()
				+ " acquisition(s) under way to get their lock or give up");
		while (!(held = stillHeld()).isEmpty() || this.acquiring.get() > 0) {
			long remaining = deadline - System.nanoTime();
			if (remaining <= 0) {
				logger.warn("Shutdown: after " + timeout.toMillis() + " ms, " + held.size() + " Redlock lock(s) are "
						+ "still held (" + describe(held) + ") and " + this.acquiring.get() + " acquisition(s) under way; "
						+ "the client releases what is held when it closes, and tells each lost");
				return;
			}
			try {
				Thread.sleep(Math.min(RECHECK_MILLIS, TimeUnit.NANOSECONDS.toMillis(remaining) + 1));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
		logger.info("Shutdown: every Redlock lock was released by its holder, after "
				+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
	}

	private List<RedlockHold> stillHeld() {
		List<RedlockHold> held = new ArrayList<>();
		for (RedlockHold hold : this.holds) {
			if (hold.lostReason() == null) {
				held.add(hold);
			}
		}
		return held;
	}

	private static String describe(List<RedlockHold> held) {
		return held.stream().map((hold) -> "'" + hold.id.key() + "'").collect(Collectors.joining(", "));
	}

}
