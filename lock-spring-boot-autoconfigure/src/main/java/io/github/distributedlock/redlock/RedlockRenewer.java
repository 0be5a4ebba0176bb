package io.github.distributedlock.redlock;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The watchdog of Redlock holds: every lease/3 it extends an auto-renewed hold on every node at once
 * ({@code extend.lua}) and, when a quorum confirmed, moves its validity to {@code start + lease - drift}, the start
 * taken before the round on {@link System#nanoTime()}. A round short of a quorum is a renewal failure; the hold
 * is lost at once when so many nodes answered that it is gone there that no quorum can hold it any more, and
 * otherwise when its validity ends before a later round reaches a quorum. A hold without auto-renew is lost when
 * its validity ends before its release. Thread-safe.
 */
final class RedlockRenewer {

	private final RedlockCommands commands;

	private final RedlockEvents events;

	private final ScheduledExecutorService scheduler;

	RedlockRenewer(RedlockCommands commands, RedlockEvents events, ScheduledExecutorService scheduler) {
		this.commands = commands;
		this.events = events;
		this.scheduler = scheduler;
	}

	/**
	 * Starts watching a new hold.
	 * @param hold the hold
	 */
	void watch(RedlockHold hold) {
		try {
			if (hold.autoRenew) {
				long period = Math.max(1, hold.leaseMillis / 3);
				hold.renewal(this.scheduler.scheduleWithFixedDelay(() -> renew(hold), period, period,
						TimeUnit.MILLISECONDS));
			}
			else {
				expireAt(hold, "its lease of " + hold.leaseMillis + " ms (without auto-renew) ended before its "
						+ "release");
			}
		}
		catch (RejectedExecutionException ex) {
			this.events.lost(hold, "the lock client was closed");
		}
	}

	private void renew(RedlockHold hold) {
		if (hold.lostReason() != null) {
			hold.stopRenewal();
			return;
		}
		long start = System.nanoTime();
		this.commands.extend(hold.keys, hold.attempt, hold.leaseMillis).thenAccept((replies) -> {
			int nodes = this.commands.nodes().size();
			int quorum = this.commands.settings().quorum();
			int extended = replies.ones();
			if (extended >= quorum) {
				hold.confirmedUntil(start + TimeUnit.MILLISECONDS.toNanos(hold.leaseMillis)
						- this.commands.settings().driftNanos(hold.leaseMillis));
				return;
			}
			this.events.renewalFailed(hold);
			int gone = replies.answered() - extended;
			if (nodes - gone < quorum) {
				this.events.lost(hold, "its renewal found it on only " + extended + " of " + nodes
						+ " Redlock nodes (quorum " + quorum + "): no quorum holds it any more");
			}
			else {
				expireAt(hold, "its renewal reached only " + extended + " of " + nodes + " Redlock nodes (quorum "
						+ quorum + ") before its validity ended");
			}
		});
	}

	private void expireAt(RedlockHold hold, String reason) {
		long delay = hold.validUntil() - System.nanoTime();
		try {
			this.scheduler.schedule(() -> {
				if (System.nanoTime() - hold.validUntil() >= 0) {
					this.events.lost(hold, reason);
				}
			}, Math.max(0, delay), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// the client is closing: it tells every hold it still has
		}
	}

}
