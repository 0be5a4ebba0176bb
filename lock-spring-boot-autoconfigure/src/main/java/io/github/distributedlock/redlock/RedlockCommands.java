package io.github.distributedlock.redlock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The commands of the Redlock store, each sent to every node at once ({@link NodeReplies#sendUntilQuorum}): the vote,
 * the token's record, the renewal and the release (which publishes the key on the release channel where a
 * waiting attempt was refused). Thread-safe.
 */
final class RedlockCommands {

	private final List<RedlockNode> nodes;

	private final RedlockSettings settings;

	private final String channel;

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
	 * Phase 1: asks every node for its vote, and completes once a quorum granted (or no longer can), without
	 * waiting for the slowest node.
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param leaseMillis the lease
	 * @return completes with the votes; never fails
	 */
	CompletableFuture<Votes> vote(RedlockKeys keys, String attempt, long leaseMillis) {
		return vote(keys, attempt, leaseMillis, false);
	}

	/**
	 * Phase 1 as {@link #vote(RedlockKeys, String, long)}, for an attempt that may wait: a node that refuses it
	 * marks the holder's key, so that its release publishes the key on the release channel.
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param leaseMillis the lease
	 * @param waits whether the attempt waits when refused
	 * @return completes with the votes; never fails
	 */
	CompletableFuture<Votes> vote(RedlockKeys keys, String attempt, long leaseMillis, boolean waits) {
		String[] args = { keys.lock(), keys.counter(), keys.withdrawn(attempt) };
		String lease = Long.toString(leaseMillis);
		String marks = waits ? "1" : "0";
		// filled in also by the votes that answer after the quorum: their nodes need no withdrawal marker
		boolean[] answered = new boolean[this.nodes.size()];
		return NodeReplies.sendUntilQuorum(this.nodes, (node, i) -> node.eval(RedlockScript.VOTE, args, attempt, lease, marks)
			.whenComplete((reply, failure) -> {
				if (failure == null) {
					answered[i] = true;
				}
				tell(node, reply, failure);
			}), (reply) -> reply instanceof List<?> list && !list.isEmpty() && Long.valueOf(1).equals(list.get(0)),
				this.settings.quorum())
			.thenApply((replies) -> Votes.of(replies, answered));
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
	 * Phase 2: records the token on the nodes that granted, and completes once a quorum recorded (or no longer
	 * can).
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param token the token
	 * @param granted per node, whether it granted (only those are asked)
	 * @return completes with the replies (1 where recorded); never fails
	 */
	CompletableFuture<NodeReplies> record(RedlockKeys keys, String attempt, long token, boolean[] granted) {
		String[] args = { keys.lock(), keys.counter() };
		String value = Long.toString(token);
		return NodeReplies.sendUntilQuorum(this.nodes, (node, i) -> granted[i]
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
	 * deleted it (or no longer can), without waiting for the slowest node, whose release still runs; never fails
	 */
	CompletableFuture<NodeReplies> release(RedlockKeys keys, String attempt, long leaseMillis, boolean[] answered) {
		return release(keys, attempt, leaseMillis, answered, this.channel);
	}

	/**
	 * Withdraws an attempt that did not win, as {@link #release} does, but publishes nothing: the waiters of the
	 * key are not all woken at once by the end of a split vote, which would make them split the nodes again;
	 * they and the contenders vote again after their random delays.
	 * @param keys the lock's keys
	 * @param attempt the attempt id
	 * @param leaseMillis the lease: how long the attempt's marker lives
	 * @param answered per node, whether its vote answered
	 * @return completes as {@link #release}'s does; never fails
	 */
	CompletableFuture<NodeReplies> withdraw(RedlockKeys keys, String attempt, long leaseMillis, boolean[] answered) {
		return release(keys, attempt, leaseMillis, answered, "");
	}

	private CompletableFuture<NodeReplies> release(RedlockKeys keys, String attempt, long leaseMillis,
			boolean[] answered, String channel) {
		String[] args = { keys.lock(), keys.withdrawn(attempt) };
		String lease = Long.toString(leaseMillis);
		return NodeReplies.sendUntilQuorum(this.nodes, (node, i) -> releaseOn(node, args, attempt, lease,
				answered == null || answered[i], channel), (reply) -> Long.valueOf(1).equals(reply),
				this.settings.quorum());
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
		String[] args = { keys.lock(), keys.withdrawn(attempt) };
		String lease = Long.toString(leaseMillis);
		return NodeReplies.sendToAll(this.nodes, (node, i) -> first.answered(i)
				? CompletableFuture.completedFuture(first.replies().get(i))
				: releaseOn(node, args, attempt, lease, answered[i], this.channel));
	}

	/**
	 * Sends a release to one node (it sets the attempt's marker there, see {@code release.lua}): with
	 * {@code EVALSHA}, but with the text where the node's vote did not answer. That node is slow or unreachable, and
	 * the marker must be set even if this client stops waiting: an {@code EVALSHA} answered {@code NOSCRIPT} too
	 * late would never be sent again as text.
	 */
	private static CompletableFuture<Object> releaseOn(RedlockNode node, String[] keys, String attempt,
			String markerMillis, boolean voteAnswered, String channel) {
		return voteAnswered ? node.eval(RedlockScript.RELEASE, keys, attempt, markerMillis, channel)
				: node.evalText(RedlockScript.RELEASE, keys, attempt, markerMillis, channel);
	}

}
