package io.github.distributedlock.redis;

import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Reads a release's "not held" answer that came after a connection broke. Lettuce sends a command that was on
 * its way when its connection broke again after the reconnect (at-least-once delivery), so the release may
 * have run twice, and this answer be the second run's, which found the first run's work done: the release
 * stands. But the same answer comes when the lock was wiped meanwhile, before the release ran: Redis restarted
 * empty, a failover to a replica that never got the key. The two are told apart by the server: a release that
 * ran twice ran both times on a server that kept its scripts, while a server that restarted or another one that
 * took over does not know them and answered NOSCRIPT to some command since the release was sent. Where Redis
 * lost its scripts meanwhile, the release reports the possible loss rather than guess.
 * <p>
 * What this cannot tell: a {@code DEL} or a force-release of the key on the same server in the moment between
 * the release's sending and its second run is taken for the first run (as it was before this check). Thread-safe.
 */
final class ReleaseReplays {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	/** Counts broken connections (see {@link ReleaseNotifications#disconnects()}). */
	private final LongSupplier disconnects;

	/** Counts the NOSCRIPT answers (see {@link ScriptTransport#noScriptAnswers()}). */
	private final LongSupplier noScriptAnswers;

	ReleaseReplays(LongSupplier disconnects, LongSupplier noScriptAnswers) {
		this.disconnects = disconnects;
		this.noScriptAnswers = noScriptAnswers;
	}

	/**
	 * Records what a release is sent under, before it is sent.
	 * @return the record, for {@link #notHeld}
	 */
	Sent sending() {
		return new Sent(System.nanoTime(), this.disconnects.getAsLong(), this.noScriptAnswers.getAsLong());
	}

	/**
	 * Reads a release's "not held" answer for a hold not known to be lost; marks the hold lost when the lock may
	 * have been wiped before the release ran.
	 * @param hold the hold released
	 * @param sent what the release was sent under
	 * @return 0 (released: the answer is a second run's) or {@link LockScripts#NOT_HELD} (the lock is, or may
	 * be, lost)
	 */
	long notHeld(Hold hold, Sent sent) {
		if (this.disconnects.getAsLong() == sent.disconnects() || hold.confirmedUntil - sent.at() <= 0) {
			// no connection broke, or the lease may have ended before the release: gone
			return LockScripts.NOT_HELD;
		}
		if (this.noScriptAnswers.getAsLong() == sent.noScriptAnswers()) {
			// sent while its lease was sure to last, and a connection broke meanwhile on a server that kept its
			// scripts: Lettuce sent it again, and this answer is the second run's
			logger.debug("Released lock '" + hold.id.key() + "' of " + hold.owner + "; the release ran twice (its "
					+ "connection broke and it was sent again)");
			return 0;
		}
		hold.markLost("it may have been wiped before its release ran: the release found it gone after a reconnect "
				+ "to a Redis that had lost its scripts meanwhile (restarted, failed over or flushed), which cannot be "
				+ "told from a release that ran twice");
		return LockScripts.NOT_HELD;
	}

	/**
	 * What a release was sent under.
	 * @param at {@link System#nanoTime()} when it was sent
	 * @param disconnects broken connections counted by then
	 * @param noScriptAnswers NOSCRIPT answers counted by then
	 */
	record Sent(long at, long disconnects, long noScriptAnswers) {
	}

}
