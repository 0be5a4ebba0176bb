package io.github.distributedlock.redlock;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockLostException;
import org.jspecify.annotations.Nullable;

/**
 * Releases Redlock holds: one re-entry locally, the last hold on every node (with withdrawal markers where the
 * acquisition's vote never answered; a hold whose minimum hold has not ended is kept on each node, taken by nobody,
 * until it ends, see {@link RedlockCommands#keep}), and judges the outcome, a keep as a release: lost when so many nodes answered that it was not
 * there that no quorum can have held it; released when a quorum answered (a node that did not keeps it until its
 * lease ends there). A release that neither a quorum confirmed nor enough absences refuted is first sent once more
 * to the nodes that did not answer; then, if fewer than a quorum answered, a {@link DistributedLockException}: the
 * lock ends with its lease. Thread-safe.
 */
final class RedlockReleases {

	private final RedlockCommands commands;

	private final RedlockEvents events;

	private final Map<RedlockHold.HoldKey, RedlockHold> holds;

	RedlockReleases(RedlockCommands commands, RedlockEvents events, Map<RedlockHold.HoldKey, RedlockHold> holds) {
		this.commands = commands;
		this.events = events;
		this.holds = holds;
	}

	/**
	 * Releases one hold and waits for the nodes (each bounded by the per-node timeout).
	 * @param hold the hold
	 * @throws LockLostException if it was lost before this release
	 * @throws DistributedLockException if too few nodes answered to know
	 */
	void release(RedlockHold hold) {
		try {
			releaseAsync(hold).toCompletableFuture().join();
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof RuntimeException cause) {
				throw cause;
			}
			throw ex;
		}
	}

	/**
	 * Releases one hold without waiting.
	 * @param hold the hold
	 * @return completes when released; fails as {@link #release} throws
	 */
	CompletionStage<Void> releaseAsync(RedlockHold hold) {
		boolean last = hold.releaseOne();
		String lost = hold.lostReason();
		if (!last) {
			return (lost != null) ? CompletableFuture.failedFuture(new LockLostException(hold.id.key(), lost))
					: CompletableFuture.completedFuture(null);
		}
		this.holds.remove(hold.id, hold);
		hold.stopRenewal();
		int quorum = this.commands.settings().quorum();
		long keepMillis = hold.keepMillis();
		if (keepMillis > 0 && lost == null) {
			// the minimum hold has not ended: the key stays taken, by nobody, until it does
			return this.commands.keep(hold.keys, hold.attempt, hold.leaseMillis, keepMillis, hold.answered)
				.thenCompose((replies) -> decided(replies, quorum) ? CompletableFuture.completedFuture(replies)
						: this.commands.keepAgain(hold.keys, hold.attempt, hold.leaseMillis, keepMillis,
								hold.answered, replies))
				.thenApply((replies) -> judge(hold, null, replies));
		}
		return this.commands.release(hold.keys, hold.attempt, hold.leaseMillis, hold.answered)
			.thenCompose((replies) -> decided(replies, quorum) ? CompletableFuture.completedFuture(replies)
					: this.commands.releaseAgain(hold.keys, hold.attempt, hold.leaseMillis, hold.answered, replies))
			.thenApply((replies) -> judge(hold, lost, replies));
	}

	/**
	 * Whether the replies tell the outcome: every node answered, or a quorum had it (held until now), or so many did
	 * not that no quorum can have held it. Otherwise a node that did not answer may decide it, and is asked once
	 * more: one node timing out (a loaded machine, a stall) must not turn a lost lock into a release. A repeated
	 * release answers what its first run found ({@code release.lua}), so asking again never reads a release that
	 * ran as an absence.
	 */
	private boolean decided(NodeReplies replies, int quorum) {
		int nodes = this.commands.nodes().size();
		return replies.answered() == nodes || replies.ones() >= quorum || refuted(absent(replies), nodes, quorum);
	}

	/**
	 * Counts the nodes that answered a release without having the lock (any reply but 1).
	 */
	private static int absent(NodeReplies replies) {
		return replies.answered() - replies.ones();
	}

	/**
	 * Whether so many nodes lacked the lock that no quorum can have held it, a node still silent counting neither
	 * way.
	 */
	private static boolean refuted(int absent, int nodes, int quorum) {
		return nodes - absent < quorum;
	}

	private @Nullable Void judge(RedlockHold hold, @Nullable String lostBefore, NodeReplies replies) {
		if (lostBefore != null) {
			this.events.released(hold, true);
			throw new LockLostException(hold.id.key(), lostBefore);
		}
		int nodes = this.commands.nodes().size();
		int quorum = this.commands.settings().quorum();
		int absent = absent(replies);
		if (refuted(absent, nodes, quorum)) {
			// decided once so many nodes lacked it that no quorum can have held it: a node still silent then
			// counts neither way
			String reason = "its release did not find it on " + absent + " of " + nodes + " Redlock nodes (quorum "
					+ quorum + "), so no quorum held it: its lease had ended or it was deleted";
			this.events.lostAtRelease(hold, reason);
			this.events.released(hold, true);
			throw new LockLostException(hold.id.key(), reason);
		}
		if (replies.answered() >= quorum) {
			// a node that did not answer keeps the lock until its lease ends there; a quorum no longer holds it
			this.events.released(hold, false);
			return null;
		}
		this.events.releaseFailed(hold);
		this.events.released(hold, false);
		throw new DistributedLockException("Lock '" + hold.id.key() + "': only " + replies.answered() + " of "
				+ nodes + " Redlock nodes answered its release (quorum " + quorum
				+ "); it ends with its lease on the others");
	}

}
