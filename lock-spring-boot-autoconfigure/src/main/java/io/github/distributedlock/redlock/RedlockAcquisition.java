package io.github.distributedlock.redlock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a Redlock, round after round until it holds, its deadline passes or it is cancelled. A
 * round: the start time on {@link System#nanoTime()}; the vote ({@code vote.lua}) sent to every node at once, until
 * its outcome is one no later answer changes ({@code RedlockCommands.vote}), with a proposed token (the client's
 * estimate of the greatest node clock plus a margin, or above what the last round was answered: see
 * {@link RedlockClocks}); with a quorum of grants, the fencing token: the proposal if it is above the token basis of
 * every node that answered (the votes recorded it there), otherwise one more than the greatest basis, recorded
 * ({@code record.lua}) on every node that answered and, with a quorum of records on granting nodes, the token; then
 * the validity {@code lease - elapsed - drift}; held if it is at least the minimum validity. Any other outcome
 * withdraws the attempt on every node that did not refuse its vote before the round decided (those that granted,
 * and those that did not answer, which get a withdrawal marker; a node that refused holds nothing of it and runs
 * nothing more of it) and tries again within
 * the deadline: after a round that no node granted because other attempts hold the key, or that a quorum
 * refused for one other attempt (which then holds the lock, its vote on this attempt's granting node came
 * late), as soon as a node
 * publishes the key's release ({@link RedlockWait}), or at the latest after a random delay between half the retry
 * delay and the retry delay (no later than the holder's lease ends where it ends first); after any other round
 * (a split vote between contenders, nodes that did not answer), after a random delay of up to the retry delay, as
 * redis.io's algorithm does, so that contenders do not vote again in step. Each round is a new attempt id, so no
 * command of a withdrawn round acts on a later one. When the deadline passes (or at once for a single try), the
 * outcome is judged on the last round's every answer: fewer than a quorum of nodes answered is the store
 * unavailable ({@link DistributedLockException}); otherwise not acquired ({@code null}: busy, also while a minority
 * of nodes is down). Thread-safe: rounds run one after another on Lettuce's and
 * the scheduler's threads.
 */
final class RedlockAcquisition {

	private final RedlockCommands commands;

	private final ScheduledExecutorService scheduler;

	private final Supplier<String> attempts;

	private final RedlockHold.HoldKey id;

	private final RedlockKeys keys;

	private final long leaseMillis;

	private final boolean autoRenew;

	/** The {@link System#nanoTime()} after which no round starts; ignored when {@link #waitsForever}. */
	private final long deadline;

	private final boolean waitsForever;

	private final boolean tryOnce;

	/** Completes with the hold, with {@code null} when the deadline passed, or fails; cancelled to give up. */
	final CompletableFuture<@Nullable RedlockHold> result = new CompletableFuture<>();

	/** How many nodes answered the last round's vote. */
	private volatile int lastAnswered;

	/** The last round's votes, {@code null} before the first. */
	private volatile @Nullable Votes lastVotes;

	/** How long the last round's vote took to decide, in nanoseconds. */
	private volatile long lastVoteNanos;

	/** How this acquisition waits for a release; {@code null} when it tries once. */
	private final @Nullable RedlockWait wait;

	RedlockAcquisition(RedlockCommands commands, RedlockNotifications notifications,
			ScheduledExecutorService scheduler, Supplier<String> attempts, RedlockHold.HoldKey id, RedlockKeys keys,
			long leaseMillis, boolean autoRenew, @Nullable Long timeoutNanos) {
		this.commands = commands;
		this.scheduler = scheduler;
		this.attempts = attempts;
		this.id = id;
		this.keys = keys;
		this.leaseMillis = leaseMillis;
		this.autoRenew = autoRenew;
		this.waitsForever = timeoutNanos == null;
		this.tryOnce = timeoutNanos != null && timeoutNanos == 0;
		this.deadline = System.nanoTime() + ((timeoutNanos == null) ? 0 : timeoutNanos);
		this.wait = this.tryOnce ? null
				: new RedlockWait(notifications, keys.lock(), scheduler, this::round, this::closed);
	}

	/**
	 * Starts the first round.
	 * @return the result
	 */
	CompletableFuture<@Nullable RedlockHold> start() {
		RedlockWait waiting = this.wait;
		if (waiting != null) {
			this.result.whenComplete((hold, failure) -> waiting.close());
		}
		round();
		return this.result;
	}

	private void round() {
		if (this.result.isDone()) {
			return;
		}
		if (this.wait != null) {
			this.wait.roundStarts();
		}
		String attempt = this.attempts.get();
		long start = System.nanoTime();
		long proposal = this.commands.proposal(this.lastVotes);
		this.commands.vote(this.keys, attempt, this.leaseMillis, this.wait != null, proposal)
			.thenCompose((votes) -> {
				this.lastVoteNanos = System.nanoTime() - start;
				return afterVotes(attempt, start, proposal, votes);
			})
			.whenComplete((hold, failure) -> {
				if (failure != null) {
					this.result.completeExceptionally(failure);
				}
				else if (hold != null) {
					if (!this.result.complete(hold)) {
						// given up meanwhile: nobody will hold it
						this.commands.release(this.keys, attempt, this.leaseMillis, hold.answered);
					}
				}
				else {
					again();
				}
			});
	}

	private CompletableFuture<@Nullable RedlockHold> afterVotes(String attempt, long start, long proposal,
			Votes votes) {
		this.lastAnswered = count(votes.answered());
		this.lastVotes = votes;
		int quorum = this.commands.settings().quorum();
		if (!votes.hasQuorum(quorum) || this.result.isDone()) {
			return withdraw(attempt, votes);
		}
		if (votes.recorded(proposal)) {
			// the votes recorded the proposal on every node that answered, with the grant on the granting ones
			return holdIfValid(attempt, start, proposal, votes);
		}
		long token = votes.nextToken();
		return this.commands.record(this.keys, attempt, token, votes.answered()).thenCompose((recorded) ->
				(recorded.ones() < quorum) ? withdraw(attempt, votes) : holdIfValid(attempt, start, token, votes));
	}

	/**
	 * Holds once a quorum holds the key with the token recorded, if the validity ({@code lease - elapsed - drift}
	 * from the round's start) is at least the minimum; otherwise withdraws the attempt.
	 */
	private CompletableFuture<@Nullable RedlockHold> holdIfValid(String attempt, long start, long token, Votes votes) {
		long validUntil = start + TimeUnit.MILLISECONDS.toNanos(this.leaseMillis)
				- this.commands.settings().driftNanos(this.leaseMillis);
		if (validUntil - System.nanoTime() < this.commands.settings().minValidity().toNanos()) {
			return withdraw(attempt, votes);
		}
		return CompletableFuture.completedFuture(new RedlockHold(this.id, this.keys, attempt, token,
				this.leaseMillis, this.autoRenew, votes.answered(), validUntil));
	}

	private CompletableFuture<@Nullable RedlockHold> withdraw(String attempt, Votes votes) {
		return this.commands.withdraw(this.keys, attempt, this.leaseMillis, votes).thenApply((r) -> null);
	}

	private void again() {
		if (this.wait != null) {
			this.wait.roundFailed();
		}
		long left = this.deadline - System.nanoTime();
		if (this.tryOnce || (!this.waitsForever && left <= 0)) {
			int quorum = this.commands.settings().quorum();
			// a vote that did not end with a quorum answering waited for every node (each within the node timeout):
			// fewer than a quorum answering is the store unavailable; otherwise the lock is busy (held by another
			// owner, or split between contenders), also while a minority of nodes is down
			if (this.lastAnswered < quorum) {
				this.result.completeExceptionally(new DistributedLockException("Lock '" + this.id.key()
						+ "': only " + this.lastAnswered + " of " + this.commands.nodes().size()
						+ " Redlock nodes answered its last vote, fewer than the quorum of " + quorum));
			}
			else {
				this.result.complete(null);
			}
			return;
		}
		long retry = this.commands.settings().retryDelay().toNanos();
		Votes votes = this.lastVotes;
		int quorum = this.commands.settings().quorum();
		if (this.wait != null && votes != null && votes.shortestRefusal() > 0
				&& (votes.grants() == 0 || votes.largestHolder() >= quorum)) {
			// held by another (or only by others): a release wakes this acquisition; the fallback covers a lost
			// message
			long fallback = Math.min(retry / 2 + ThreadLocalRandom.current().nextLong(retry - retry / 2 + 1),
					TimeUnit.MILLISECONDS.toNanos(votes.shortestRefusal() + 1));
			// woken: after a random delay of up to one vote's time, so that waiters woken together spread out
			this.wait.park(this.waitsForever ? fallback : Math.min(fallback, left),
					Math.min(retry, this.lastVoteNanos));
			return;
		}
		long delay = ThreadLocalRandom.current().nextLong(retry + 1);
		if (!this.waitsForever) {
			delay = Math.min(delay, left);
		}
		try {
			this.scheduler.schedule(this::round, delay, TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException ex) {
			closed(ex);
		}
	}

	private void closed(RuntimeException ex) {
		this.result.completeExceptionally(new DistributedLockException("Lock '" + this.id.key()
				+ "': the Redlock client is closed", ex));
	}

	private static int count(boolean[] values) {
		int count = 0;
		for (boolean value : values) {
			if (value) {
				count++;
			}
		}
		return count;
	}

}
