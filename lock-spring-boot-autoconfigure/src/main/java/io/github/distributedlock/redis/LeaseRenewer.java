package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.distributedlock.core.DistributedLockException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Renews a batch of holds in Redis for the {@link LeaseWatchdog} and records each outcome on its hold: a
 * renewal confirms the lease from when it was sent and sets the next renewal a third of the lease later; a
 * lock found gone is lost; a failure is retried after a third of what is left of the lease, but no sooner than
 * {@link #retryGapNanos(long)} (50 ms for leases of 500 ms and more), and the hold is lost once the lease ran out
 * without a renewal, or while a renewal went unanswered ({@link LeaseRenewalWatch}). Each hold's outcome is
 * recorded when its own reply comes, so
 * a slow reply (a cluster node that answers late) delays no other hold of the batch. Thread-safe.
 */
final class LeaseRenewer {

	private static final Log logger = LogFactory.getLog(LeaseWatchdog.class);

	/**
	 * The shortest gap between two tries to renew a lock after a failure, in milliseconds, for leases of 500 ms
	 * and more: at most 20 tries a second per lock near the end of its lease (see {@link #retryGapNanos(long)}).
	 */
	static final long RETRY_GAP_MILLIS = 50;

	private final LeaseRenewalScripts renewals;

	private final HoldEvents events;

	private final LeaseRenewalWatch unanswered;

	LeaseRenewer(LeaseRenewalScripts renewals, HoldEvents events, LeaseRenewalWatch unanswered) {
		this.renewals = renewals;
		this.events = events;
		this.unanswered = unanswered;
	}

	/**
	 * Renews holds: one alone with a plain round trip, several in one pipeline (one round trip each took 10 s
	 * for 1,000 locks at 10 ms a round trip, far past 1 s leases).
	 * @param due the holds to renew
	 * @param renewalEnded called for each hold once its outcome is recorded
	 * @return completes when every hold's outcome is recorded; never fails
	 */
	CompletableFuture<Void> renew(List<Hold> due, Consumer<Hold> renewalEnded) {
		long sentAt = System.nanoTime();
		List<CompletableFuture<ScriptExecutor.Outcome>> outcomes;
		try {
			outcomes = send(due);
		}
		catch (RuntimeException ex) {
			// a failure to even send the batch is each hold's failed renewal: none of them may be left "being
			// renewed" for ever, neither renewed nor reported lost
			DistributedLockException failure = asLockFailure(ex);
			outcomes = new ArrayList<>(due.size());
			for (int i = 0; i < due.size(); i++) {
				outcomes.add(CompletableFuture.completedFuture(new ScriptExecutor.Outcome(0, failure)));
			}
		}
		LeaseRenewalWatch.Watch watch = this.unanswered.watch(due);
		List<CompletableFuture<Void>> recorded = new ArrayList<>(due.size());
		for (int i = 0; i < due.size(); i++) {
			Hold hold = due.get(i);
			recorded.add(outcomes.get(i).handle((outcome, ex) -> {
				try {
					if (ex != null || outcome.failure() != null) {
						renewalFailed(hold, (ex != null) ? ScriptExecutor.unwrap(ex) : outcome.failure());
					}
					else {
						renewed(hold, outcome.result(), sentAt);
					}
				}
				finally {
					renewalEnded.accept(hold);
				}
				return null;
			}));
		}
		CompletableFuture<Void> all = CompletableFuture.allOf(recorded.toArray(CompletableFuture[]::new));
		all.whenComplete((done, ex) -> watch.end());
		if (WaitLog.renewals()) {
			all.whenComplete((done, ex) -> WaitLog.renewed(due, sentAt));
		}
		return all;
	}

	private List<CompletableFuture<ScriptExecutor.Outcome>> send(List<Hold> due) {
		if (due.size() == 1) {
			return List.of(this.renewals.renew(due.get(0))
				.handle((result, ex) -> (ex != null) ? new ScriptExecutor.Outcome(0, asLockFailure(ex))
						: new ScriptExecutor.Outcome(result, null)));
		}
		return this.renewals.renewAll(due);
	}

	private static DistributedLockException asLockFailure(Throwable ex) {
		RuntimeException failure = ScriptExecutor.unwrap(ex);
		return (failure instanceof DistributedLockException lock) ? lock
				: new DistributedLockException(
						"Could not renew a lock in Redis: " + failure.getMessage(), failure);
	}

	/**
	 * Records what a renewal sent at {@code sentAt} returned: 1 renewed, else the lock is gone: -1 its key holds
	 * a value of another type now (see {@code reentrant_renew_all.lua}).
	 */
	private void renewed(Hold hold, long result, long sentAt) {
		if (result == 1) {
			hold.renewed(sentAt);
		}
		else if (hold.markLostIfHeld((result == -1)
				? "the watchdog found its Redis key '" + hold.redisKey() + "' overwritten with a value that is no lock"
				: "the watchdog found it gone when it renewed it (it expired, was deleted or was force-released in "
						+ "Redis)")) {
			this.events.later(() -> this.events.lost(hold));
		}
	}

	/**
	 * The shortest time between two tries to renew one lock after a failure: {@link #RETRY_GAP_MILLIS}, or a
	 * tenth of the lease if that is shorter (at least 10 ms, as an auto-renewed lease is at least 100 ms). A
	 * third of what is left alone shrinks towards nothing near the end of the lease: about a thousand tries a
	 * second for each lock while Redis refused them all.
	 * @param leaseMillis the lease in milliseconds
	 * @return the gap in nanoseconds
	 */
	static long retryGapNanos(long leaseMillis) {
		return TimeUnit.MILLISECONDS.toNanos(Math.max(1, Math.min(RETRY_GAP_MILLIS, leaseMillis / 10)));
	}

	private void renewalFailed(Hold hold, RuntimeException ex) {
		this.events.later(() -> this.events.renewalFailed(hold));
		// tried again after another third of what is left, not at once: Redis may take a while to return
		if (hold.renewalFailed(System.nanoTime(), retryGapNanos(hold.leaseMillis()))) {
			hold.markLost("it could not be renewed for longer than its lease of " + hold.leaseMillis() + " ms ("
					+ ex.getMessage() + ")");
			this.events.later(() -> this.events.lost(hold));
		}
		else {
			if (logger.isWarnEnabled()) {
				logger.warn("Could not renew lock '" + hold.key() + "'; retrying while its lease lasts", ex);
			}
		}
	}

}
