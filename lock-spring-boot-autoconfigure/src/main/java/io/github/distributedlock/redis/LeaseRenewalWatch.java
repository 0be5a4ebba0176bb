package io.github.distributedlock.redis;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Watches a batch of renewals on their way for the {@link LeaseRenewer}: a hold whose confirmed lease runs out
 * while its renewal is still unanswered (a Redis server that stalls, a network partition that drops nothing
 * but delivers nothing either) is lost from that moment on, as far as this client can know, and is marked so
 * at once rather than when the command times out, which may be many leases later. The holder's work learns
 * of it through the loss report ({@code whenLost()}, {@code onLost = INTERRUPT}). A reply that comes after
 * that does not make the hold held again. Thread-safe.
 */
final class LeaseRenewalWatch {

	private final ScheduledExecutorService timer;

	private final HoldEvents events;

	LeaseRenewalWatch(ScheduledExecutorService timer, HoldEvents events) {
		this.timer = timer;
		this.events = events;
	}

	/**
	 * Starts watching a batch just sent.
	 * @param batch the holds whose renewal was sent
	 * @return the watch; {@linkplain Watch#end() end} it once every outcome is recorded
	 */
	Watch watch(List<Hold> batch) {
		Watch watch = new Watch(batch);
		watch.scheduleBy(earliestEnd(batch));
		return watch;
	}

	private static long earliestEnd(List<Hold> batch) {
		long earliest = batch.get(0).confirmedUntil();
		for (Hold hold : batch) {
			if (hold.confirmedUntil() - earliest < 0) {
				earliest = hold.confirmedUntil();
			}
		}
		return earliest;
	}

	/** The watch of one batch: checks it when the earliest confirmed lease among the unanswered ones ends. */
	final class Watch {

		private final List<Hold> batch;

		private volatile boolean ended;

		private Watch(List<Hold> batch) {
			this.batch = batch;
		}

		/** Stops the watch: every renewal of the batch was answered (or failed). */
		void end() {
			this.ended = true;
		}

		private void scheduleBy(long due) {
			try {
				LeaseRenewalWatch.this.timer.schedule(this::check, Math.max(0, due - System.nanoTime()),
						TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				// the client is closed: nothing is renewed or lost any more
			}
		}

		private void check() {
			if (this.ended) {
				return;
			}
			long now = System.nanoTime();
			long next = Long.MAX_VALUE;
			boolean waiting = false;
			for (Hold hold : this.batch) {
				if (!hold.isRenewalPending()) {
					continue;
				}
				if (now - hold.confirmedUntil() >= 0) {
					if (hold.markLostIfHeld("its lease of " + hold.leaseMillis() + " ms ran out while its renewal "
							+ "went unanswered (Redis stalled or could not be reached)")) {
						LeaseRenewalWatch.this.events.later(() -> LeaseRenewalWatch.this.events.lost(hold));
					}
				}
				else if (!waiting || hold.confirmedUntil() - next < 0) {
					next = hold.confirmedUntil();
					waiting = true;
				}
			}
			if (waiting) {
				scheduleBy(next);
			}
		}

	}

}
