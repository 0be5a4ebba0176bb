package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Reads a release's "not held" answer when the release may have run before: after a connection broke while it
 * was on its way (Lettuce sends such a command again after the reconnect: at-least-once delivery), or on a retry of
 * a release whose first try failed on a timeout or a dropped connection. The answer may then be that of a second
 * run, which found the first run's work done: the release stands. But the same answer comes when the lock was wiped
 * meanwhile, before the release ran: Redis restarted empty or was flushed, a failover to a replica that never got
 * the key. The two are told apart by the server's life ({@link ServerLife}): only on the life that granted the lock
 * is the answer a second run's; where the life changed, or cannot be told, the release reports the possible loss
 * rather than guess. (The script cache tells nothing: another instance may have loaded the scripts again on the
 * new server before this release was sent again.)
 * <p>
 * What this cannot tell: a {@code DEL} or a force-release of the key on the same server life in the moment between
 * the release's sending and its second run is taken for the first run; and a server restarted from a snapshot
 * (RDB, or an AOF rewrite) that carries the marker but not a lock taken after it (see docs/semantics.md).
 * Thread-safe.
 */
final class ReleaseReplayCheck {

	private static final Log logger = LogFactory.getLog(RedisLockClient.class);

	private static final CompletableFuture<Long> NOT_HELD = CompletableFuture.completedFuture(LockScripts.NOT_HELD);

	/** The client's broken connections. */
	private final ConnectionBreaks breaks;

	/** Whether Redis is still on the server life that granted a hold. */
	private final ServerLife serverLife;

	ReleaseReplayCheck(ConnectionBreaks breaks, ServerLife serverLife) {
		this.breaks = breaks;
		this.serverLife = serverLife;
	}

	/**
	 * Records what a release is sent under, before it is sent.
	 * @return the record, for {@link #notHeld} and {@link #notHeldOnRetry}
	 */
	Sent sending() {
		return new Sent(System.nanoTime(), this.breaks.count());
	}

	/**
	 * Reads a release's "not held" answer for a hold not known to be lost; marks the hold lost when the lock may
	 * have been wiped before the release ran.
	 * @param hold the hold released
	 * @param sent what the release was sent under
	 * @return completes with 0 (released: the answer is a second run's) or {@link LockScripts#NOT_HELD} (the lock
	 * is, or may be, lost); never fails
	 */
	CompletableFuture<Long> notHeld(Hold hold, Sent sent) {
		if (this.breaks.count() == sent.disconnects()) {
			// no connection broke: the release ran once, and found the lock gone
			return NOT_HELD;
		}
		return ranBefore(hold, sent, "the release found it gone after a reconnect", () -> logger.debug("Released lock '"
				+ hold.key() + "' of " + hold.owner() + "; the release ran twice (its connection broke and it was "
				+ "sent again)"));
	}

	/**
	 * Reads the "not held" answer to a retry of a release whose first try failed (and so may have run); marks the
	 * hold lost when the lock may have been wiped before the release ran.
	 * @param hold the hold released
	 * @param sent what the retry was sent under
	 * @return completes with 0 (released: the first try had released it) or {@link LockScripts#NOT_HELD} (the lock
	 * is, or may be, lost); never fails
	 */
	CompletableFuture<Long> notHeldOnRetry(Hold hold, Sent sent) {
		return ranBefore(hold, sent, "a retry of its release found it gone", () -> logger.info("Released lock '"
				+ hold.key() + "' of " + hold.owner() + " on a retry: Redis answered that it was not held, on the "
				+ "server life that granted it, so the first try, whose reply was lost, had released it"));
	}

	/**
	 * Judges a release that got no answer while the hold's lease lasted (every try failed on a timeout or a
	 * dropped connection): the lock ended by the release or by its lease, unless it was wiped before; marks the
	 * hold lost when Redis cannot be shown to be on the server life that granted it (it restarted, failed over,
	 * was flushed, or cannot be reached to tell).
	 * @param hold the hold released
	 * @return completes with 0 (no loss) or {@link LockScripts#NOT_HELD} (the lock may have been lost: the hold
	 * is marked so); never fails
	 */
	CompletableFuture<Long> unansweredWithinLease(Hold hold) {
		return this.serverLife.isStill(hold.generation()).thenApply((same) -> {
			if (same) {
				logger.info("The release of lock '" + hold.key() + "' of " + hold.owner() + " got no answer "
						+ "within its lease; Redis is on the server life that granted it, so the lock ended by the "
						+ "release or, at the latest, with its lease");
				return 0L;
			}
			hold.markLost("its release got no answer within its lease, and Redis cannot be shown to be on the "
					+ "server life that granted it (it restarted, failed over or was flushed meanwhile, or could not "
					+ "be reached to tell): the lock may have been wiped while it was held");
			return LockScripts.NOT_HELD;
		});
	}

	private CompletableFuture<Long> ranBefore(Hold hold, Sent sent, String found, Runnable released) {
		if (hold.confirmedUntil() - sent.at() <= 0) {
			// the lease may have ended before the release was sent: gone by itself
			return NOT_HELD;
		}
		return this.serverLife.isStill(hold.generation()).thenApply((same) -> {
			if (same) {
				released.run();
				return 0L;
			}
			hold.markLost("it may have been wiped before its release ran: " + found + ", and Redis "
					+ "cannot be shown to be on the server life that granted it (it restarted, failed over or was flushed meanwhile), "
					+ "which cannot be told from a release that ran twice");
			return LockScripts.NOT_HELD;
		});
	}

	/**
	 * What a release was sent under.
	 * @param at {@link System#nanoTime()} when it was sent
	 * @param disconnects broken connections counted by then (see {@link ConnectionBreaks#count()})
	 */
	record Sent(long at, long disconnects) {
	}

}
