package io.github.distributedlock.redlock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The commands of the Redlock store, each sent to every node at once: the vote, the token's record, the renewal
 * and the release (which publishes the key on the release channel where a waiting attempt was refused). A round
 * completes early only when no later reply can change its outcome (a quorum succeeded, or so many answered
 * against it that no quorum can); where a decision needs the late replies (the vote's busy or unavailable, its
 * token; a release neither confirmed nor refuted), it waits for them, each bounded by the per-node timeout.
 * Thread-safe.
 */
final class RedlockCommands {

	private final List<RedlockNode> nodes;

	private final RedlockSettings settings;

	private final String channel;

	private final RedlockClocks clocks = new RedlockClocks();

	private volatile RedlockVoteObserver voteObserver = RedlockVoteObserver.NONE;

	RedlockCommands(List<RedlockNode> nodes, RedlockSettings settings) {
		this.nodes = List.copyOf(nodes);
		this.settings = settings;
		this.channel = RedlockKeys.channel(settings.keyPrefix());
	}

	void setVoteObserver(RedlockVoteObserver observer) {
		observer.nodes(this.nodes.stream().map(RedlockNode::name).toList());
		this.voteObserver = observer;
	}

	List<RedlockNode> nodes() {
		return this.nodes;
	}

	RedlockSettings settings() {
		return this.settings;
	}

	/**
	 * Phase 1: asks every node for its vote, with no proposed token, and completes once the outcome no later reply
	 * can change is known (each node bounded by the per-node timeout): with a quorum of grants, once every node whose
	 * last command was answered answered this vote too (the token is minted from all their answers); busy once a
	 * quorum answered, the grants can no longer reach a quorum and those same nodes answered or failed; otherwise
	 * (unavailable, or not yet known) once every node answered or failed. Never on the replies that happened to come
	 * first.
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param leaseMillis the lease
	 * @return completes with the votes; never fails
	 */
	CompletableFuture<Votes> vote(RedlockKeys keys, String attempt, long leaseMillis) {
		return vote(keys, attempt, leaseMillis, false, 0);
	}

	/**
	 * Returns the token a vote should propose now: the client's estimate of the greatest node clock plus a margin
	 * ({@link RedlockClocks}), or one more than the greatest basis an earlier round of the same acquisition was
	 * answered, whichever is greater.
	 * @param earlier the acquisition's last votes, {@code null} before its first round
	 * @return the proposal, in microseconds; 0 for none (no recent clock seen, no earlier round)
	 */
	long proposal(@Nullable Votes earlier) {
		long proposal = this.clocks.proposal(System.nanoTime());
		return (earlier == null || earlier.greatestCounter() == 0) ? proposal
				: Math.max(proposal, earlier.greatestCounter() + 1);
	}

	/**
	 * Phase 1 as {@link #vote(RedlockKeys, String, long)}, for an attempt that may wait (a node that refuses it
	 * marks the holder's key, so that its release publishes the key on the release channel) and with a proposed
	 * token, which each node whose basis is below it records at once ({@link Votes#recorded(long)}). Every
	 * answer's clock goes to the client's estimate of the node clocks, for later proposals.
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param leaseMillis the lease
	 * @param waits whether the attempt waits when refused
	 * @param proposal the proposed token ({@link #proposal(Votes)}), 0 for none
	 * @return completes with the votes; never fails
	 */
	CompletableFuture<Votes> vote(RedlockKeys keys, String attempt, long leaseMillis, boolean waits, long proposal) {
		String[] args = { keys.lock(), keys.counter(), keys.withdrawn(attempt) };
		String lease = Long.toString(leaseMillis);
		String marks = waits ? "1" : "0";
		String proposed = Long.toString(proposal);
		// per node, whether its vote answered in time: a node whose vote did not gets a withdrawal marker
		boolean[] answered = new boolean[this.nodes.size()];
		// per node, whether the round waits for its answer once a quorum granted: not for a node whose last command
		// went unanswered (frozen, partitioned), or every acquisition would wait out its node timeout
		boolean[] awaited = new boolean[this.nodes.size()];
		for (int i = 0; i < awaited.length; i++) {
			awaited[i] = this.nodes.get(i).lastAnswered();
		}
		int quorum = this.settings.quorum();
		long sent = System.nanoTime();
		return NodeReplies.sendUntilDecided(this.nodes, (node, i) -> node
			.eval(RedlockScript.VOTE, args, attempt, lease, marks, proposed)
			.whenComplete((reply, failure) -> {
				if (failure == null) {
					answered[i] = true;
				}
				tell(node, reply, failure);
			}), (replies) -> voteDecided(replies, awaited, quorum))
			.thenApply((replies) -> {
				Votes votes = Votes.of(replies, answered);
				this.clocks.observe(votes.greatestClock(), sent, System.nanoTime());
				return votes;
			});
	}

	/**
	 * Whether a vote's replies so far decide the round so that no later reply changes its outcome: a quorum
	 * granted and every awaited node answered or failed (the token is minted from their every answer); or the
	 * grants can no longer reach a quorum while a quorum answered and every awaited node answered or failed (busy,
	 * whatever the others answer; waiting for the awaited ones, which answer about as fast, lets the withdrawal
	 * skip every node that refused: see {@link #withdraw}). Otherwise the round waits for every node (unavailable
	 * is known only once fewer than a quorum can have answered).
	 */
	private static boolean voteDecided(NodeReplies replies, boolean[] awaited, int quorum) {
		int n = awaited.length;
		int grants = 0;
		int against = 0;
		int answered = 0;
		boolean waiting = false;
		for (int i = 0; i < n; i++) {
			Object reply = replies.replies().get(i);
			if (reply != null) {
				answered++;
				if (reply instanceof List<?> list && !list.isEmpty() && Long.valueOf(1).equals(list.get(0))) {
					grants++;
				}
				else {
					against++;
				}
			}
			else if (replies.failed(i)) {
				against++;
			}
			else if (awaited[i]) {
				waiting = true;
			}
		}
		if (grants >= quorum) {
			return !waiting;
		}
		return against > n - quorum && answered >= quorum && !waiting;
	}

	private void tell(RedlockNode node, @Nullable Object reply, @Nullable Throwable failure) {
		RedlockVoteObserver.VoteOutcome outcome;
		if (failure != null) {
			outcome = isTimeout(failure) ? RedlockVoteObserver.VoteOutcome.TIMEOUT
					: RedlockVoteObserver.VoteOutcome.ERROR;
		}
		else if (reply instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Long result) {
			outcome = (result == 1L) ? RedlockVoteObserver.VoteOutcome.GRANTED : RedlockVoteObserver.VoteOutcome.REFUSED;
		}
		else {
			outcome = RedlockVoteObserver.VoteOutcome.ERROR;
		}
		try {
			this.voteObserver.voted(node.name(), outcome);
		}
		catch (RuntimeException ex) {
			// an observer's failure never changes a vote
		}
	}

	private static boolean isTimeout(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof TimeoutException || cause instanceof RedisCommandTimeoutException) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Phase 2: records the token on every node that answered the vote (each raises its token counter to it; a
	 * granting node also records it on the attempt's key), and completes once a quorum of granting nodes recorded
	 * it (or no longer can: an outcome no later reply changes). A refusing node's record is not waited for
	 * beyond that: it only carries the token to a later quorum.
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param token the token
	 * @param answered per node, whether it answered the vote (only those are asked)
	 * @return completes with the replies (1 where recorded while the attempt held the key); never fails
	 */
	CompletableFuture<NodeReplies> record(RedlockKeys keys, String attempt, long token, boolean[] answered) {
		String[] args = { keys.lock(), keys.counter() };
		String value = Long.toString(token);
		boolean[] asked = answered.clone();
		return NodeReplies.sendUntilQuorum(this.nodes, (node, i) -> asked[i]
				? node.eval(RedlockScript.RECORD, args, attempt, value) : CompletableFuture.completedFuture(0L),
				(reply) -> Long.valueOf(1).equals(reply), this.settings.quorum());
	}

	/**
	 * Extends the lease on every node where the attempt still holds the key.
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param leaseMillis the lease
	 * @return completes with the replies (1 where extended); never fails
	 */
	CompletableFuture<NodeReplies> extend(RedlockKeys keys, String attempt, long leaseMillis) {
		String[] args = { keys.lock() };
		String lease = Long.toString(leaseMillis);
		return NodeReplies.sendToAll(this.nodes, (node, i) -> node.eval(RedlockScript.EXTEND, args, attempt, lease));
	}

	/**
	 * Releases (or withdraws) an attempt on every node, also those that never answered it.
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param leaseMillis the lease: how long the attempt's marker lives
	 * @param answered per node, whether its vote answered; {@code null} when all did (a release after a hold):
	 * the release is sent as text to a node whose vote did not answer (see {@link #releaseOn}); every node gets
	 * the attempt's marker, so a vote of it run late is refused and a repeated release answers as the first
	 * @return completes with the replies (1 where the attempt held the key and it was deleted) once a quorum
	 * deleted it, or so many answered that it was not there that no quorum can have held it, without waiting for
	 * the slowest node then, whose release still runs; otherwise once every node answered or failed; never fails
	 */
	CompletableFuture<NodeReplies> release(RedlockKeys keys, String attempt, long leaseMillis, boolean[] answered) {
		return end(keys, attempt, leaseMillis, answered, null, this.channel, 0);
	}

	/**
	 * Withdraws an attempt that did not win, as {@link #release} does, but publishes nothing (the waiters of the
	 * key are not all woken at once by the end of a split vote, which would make them split the nodes again;
	 * they and the contenders vote again after their random delays), and only on the nodes that may hold it or
	 * still run its vote: not on a node that answered the vote with a refusal before the round decided. That vote
	 * ran and took nothing, and a command whose reply came is never sent again (Lettuce re-sends only commands
	 * whose reply never came), so nothing of the attempt is left there; the node answers 0 without a command. A
	 * waiter refused by the holder on every node thus withdraws nowhere, or only where its vote was still under way.
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param leaseMillis the lease: how long the attempt's marker lives
	 * @param votes the attempt's votes: their {@link Votes#answered()} and {@link Votes#refused()}
	 * @return completes as {@link #release}'s does; never fails
	 */
	CompletableFuture<NodeReplies> withdraw(RedlockKeys keys, String attempt, long leaseMillis, Votes votes) {
		return end(keys, attempt, leaseMillis, votes.answered(), votes.refused(), "", 0);
	}

	/**
	 * Releases a hold whose minimum hold has not ended, as {@link #release} does, but where the attempt holds the
	 * key it is kept, taken by nobody, for what is left of the minimum hold ({@code release.lua} with a keep), and
	 * nothing is published.
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param leaseMillis the lease: how long the attempt's marker lives
	 * @param keepMillis what is left of the minimum hold, in milliseconds, at least 1: the key's TTL from now on
	 * @param answered per node, whether its vote answered
	 * @return completes as {@link #release}'s does (1 where the attempt held the key); never fails
	 */
	CompletableFuture<NodeReplies> keep(RedlockKeys keys, String attempt, long leaseMillis, long keepMillis,
			boolean[] answered) {
		return end(keys, attempt, leaseMillis, answered, null, "", keepMillis);
	}

	/**
	 * Sends {@code release.lua} to every node but the skipped ones, which answer 0 (not held) without a command.
	 */
	private CompletableFuture<NodeReplies> end(RedlockKeys keys, String attempt, long leaseMillis,
			boolean[] answered, boolean @Nullable [] skipped, String channel, long keepMillis) {
		String[] args = { keys.lock(), keys.withdrawn(attempt) };
		String lease = Long.toString(leaseMillis);
		String keep = Long.toString(keepMillis);
		int n = this.nodes.size();
		int quorum = this.settings.quorum();
		return NodeReplies.sendUntilDecided(this.nodes, (node, i) -> (skipped != null && skipped[i])
				? CompletableFuture.completedFuture(0L)
				: releaseOn(node, args, attempt, lease, answered == null || answered[i], channel, keep),
				(replies) -> replies.ones() >= quorum || n - (replies.answered() - replies.ones()) < quorum);
	}

	/**
	 * Sends a release again to the nodes that did not answer it, once (the script is idempotent: it names the
	 * attempt).
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param leaseMillis the lease: how long the attempt's marker lives
	 * @param answered per node, whether its vote answered (see {@link #release})
	 * @param first the replies to the first release
	 * @return completes with the first replies, those of the nodes that answered now filled in; never fails
	 */
	CompletableFuture<NodeReplies> releaseAgain(RedlockKeys keys, String attempt, long leaseMillis,
			boolean[] answered, NodeReplies first) {
		return endAgain(keys, attempt, leaseMillis, answered, first, this.channel, 0);
	}

	/**
	 * Sends a {@link #keep} again to the nodes that did not answer it, once, as {@link #releaseAgain} does.
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param leaseMillis the lease: how long the attempt's marker lives
	 * @param keepMillis what is left of the minimum hold, in milliseconds
	 * @param answered per node, whether its vote answered
	 * @param first the replies to the first keep
	 * @return completes with the first replies, those of the nodes that answered now filled in; never fails
	 */
	CompletableFuture<NodeReplies> keepAgain(RedlockKeys keys, String attempt, long leaseMillis, long keepMillis,
			boolean[] answered, NodeReplies first) {
		return endAgain(keys, attempt, leaseMillis, answered, first, "", keepMillis);
	}

	private CompletableFuture<NodeReplies> endAgain(RedlockKeys keys, String attempt, long leaseMillis,
			boolean[] answered, NodeReplies first, String channel, long keepMillis) {
		String[] args = { keys.lock(), keys.withdrawn(attempt) };
		String lease = Long.toString(leaseMillis);
		String keep = Long.toString(keepMillis);
		return NodeReplies.sendToAll(this.nodes, (node, i) -> first.answered(i)
				? CompletableFuture.completedFuture(first.replies().get(i))
				: releaseOn(node, args, attempt, lease, answered[i], channel, keep));
	}

	/**
	 * Sends a release to one node (it sets the attempt's marker there, see {@code release.lua}): with
	 * {@code EVALSHA}, but with the text where the node's vote did not answer. That node is slow or unreachable, and
	 * the marker must be set even if this client stops waiting: an {@code EVALSHA} answered {@code NOSCRIPT} too
	 * late would never be sent again as text.
	 */
	private static CompletableFuture<Object> releaseOn(RedlockNode node, String[] keys, String attempt,
			String markerMillis, boolean voteAnswered, String channel, String keepMillis) {
		return voteAnswered ? node.eval(RedlockScript.RELEASE, keys, attempt, markerMillis, channel, keepMillis)
				: node.evalText(RedlockScript.RELEASE, keys, attempt, markerMillis, channel, keepMillis);
	}

}
