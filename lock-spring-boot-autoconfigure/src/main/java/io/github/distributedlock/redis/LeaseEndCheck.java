package io.github.distributedlock.redis;

import java.util.NavigableSet;
import java.util.function.Consumer;

/**
 * The losses the {@link LeaseWatchdog} learns from its clock alone, without a round trip: a hard lease
 * ({@code autoRenew = false}) that ended before its hold's release, and an auto-renewed hold whose confirmed
 * lease ended while its renewal could not even be sent (every batch slot waited on a stalled Redis). Each is
 * marked lost unless its release started, and told on the background thread (its handles' {@code whenLost()},
 * {@code onLost}, the observer), as every loss the watchdog learns. Thread-safe.
 */
final class LeaseEndCheck {

	private final HoldEvents events;

	LeaseEndCheck(HoldEvents events) {
		this.events = events;
	}

	/**
	 * While every renewal batch in flight waits on Redis (a stalled server, a partition), the holds due meanwhile
	 * cannot be renewed: one whose confirmed lease ends while it waits is lost then, as a renewal's that went
	 * unanswered is ({@link LeaseRenewalWatch}), not when a batch comes back, which may be a command timeout
	 * later. Takes each such hold out of the schedule. The next check comes when the first of the holds left
	 * ends its confirmed lease or becomes due, so a hold that comes due while the batches still wait is lost
	 * within its lease end too.
	 * @param schedule the watchdog's schedule, the first due first
	 * @param hardLeaseEnded what handles a hard-lease hold taken out (see {@link #hardLeaseEnded})
	 * @return the {@link System#nanoTime()} to check again at: the earliest lease end of the due holds left, or
	 * when the first hold not due yet becomes due; {@code Long.MAX_VALUE} for none
	 */
	long loseDueWhileStuck(NavigableSet<Hold> schedule, Consumer<Hold> hardLeaseEnded) {
		long now = System.nanoTime();
		long next = Long.MAX_VALUE;
		for (Hold hold : schedule) {
			if (hold.scheduledAt() - now > 0) {
				// the first hold not due yet: checked again when it is due (a hard lease then ends; an
				// auto-renewed hold then waits too, and its confirmed lease end is known), or nothing would look
				// at it before a stuck batch came back, a command timeout later
				next = earlier(next, hold.scheduledAt());
				break;
			}
			if (now - hold.confirmedUntil() < 0) {
				next = earlier(next, hold.confirmedUntil());
			}
			else if (schedule.remove(hold)) {
				if (!hold.autoRenew()) {
					hardLeaseEnded.accept(hold);
				}
				else {
					leaseEndedWhileWaiting(hold);
				}
			}
		}
		return next;
	}

	private static long earlier(long next, long candidate) {
		return (next == Long.MAX_VALUE || candidate - next < 0) ? candidate : next;
	}

	/**
	 * The end of a hold's hard lease, as scheduled.
	 * @param hold a hard-lease hold taken out of the watchdog's schedule
	 * @return {@code true} if a late re-entry extended the lease meanwhile: the caller schedules the hold again
	 */
	boolean hardLeaseEnded(Hold hold) {
		Hold.HardLeaseEnd end = hold.endHardLease();
		if (end == Hold.HardLeaseEnd.LOST) {
			this.events.later(() -> this.events.lost(hold));
		}
		return end == Hold.HardLeaseEnd.EXTENDED;
	}

	/**
	 * An auto-renewed hold whose confirmed lease ended while it waited for its renewal behind unanswered ones.
	 * @param hold the hold, taken out of the watchdog's schedule
	 */
	private void leaseEndedWhileWaiting(Hold hold) {
		if (hold.markLostIfHeld("its lease of " + hold.leaseMillis() + " ms ran out while its renewal waited "
				+ "behind unanswered ones (Redis stalled or could not be reached)")) {
			this.events.later(() -> this.events.lost(hold));
		}
	}

}
