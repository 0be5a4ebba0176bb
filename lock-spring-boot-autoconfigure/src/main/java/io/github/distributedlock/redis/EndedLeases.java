package io.github.distributedlock.redis;

/**
 * The losses the {@link LeaseWatchdog} learns from its clock alone, without a round trip: a hard lease
 * ({@code autoRenew = false}) that ended before its hold's release, and an auto-renewed hold whose confirmed
 * lease ended while its renewal could not even be sent (every batch slot waited on a stalled Redis). Each is
 * marked lost unless its release started, and told on the background thread (its handles' {@code whenLost()},
 * {@code onLost}, the observer), as every loss the watchdog learns. Thread-safe.
 */
final class EndedLeases {

	private final HoldEvents events;

	EndedLeases(HoldEvents events) {
		this.events = events;
	}

	/**
	 * The end of a hold's hard lease, as scheduled.
	 * @param hold a hard-lease hold taken out of the watchdog's schedule
	 * @return {@code true} if a late re-entry extended the lease meanwhile: the caller schedules the hold again
	 */
	boolean hardLeaseEnded(Hold hold) {
		synchronized (hold) {
			if (hold.released) {
				return false;
			}
			if (System.nanoTime() - hold.confirmedUntil < 0) {
				return true;
			}
			hold.isKnownLost();
		}
		this.events.later(() -> this.events.lost(hold));
		return false;
	}

	/**
	 * An auto-renewed hold whose confirmed lease ended while it waited for its renewal behind unanswered ones.
	 * @param hold the hold, taken out of the watchdog's schedule
	 */
	void leaseEndedWhileWaiting(Hold hold) {
		synchronized (hold) {
			if (hold.released) {
				return;
			}
			hold.markLost("its lease of " + hold.leaseMillis + " ms ran out while its renewal waited behind "
					+ "unanswered ones (Redis stalled or could not be reached)");
		}
		this.events.later(() -> this.events.lost(hold));
	}

}
