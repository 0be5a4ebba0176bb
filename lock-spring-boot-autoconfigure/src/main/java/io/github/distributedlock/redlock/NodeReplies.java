package io.github.distributedlock.redlock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiFunction;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * The replies of every node to one command sent to all of them at once: one entry per node, in the nodes'
 * order, each the node's reply or {@code null} where the node did not answer (unreachable, timed out, or the
 * script failed). Immutable once complete.
 *
 * @param replies one per node; {@code null} for a node that did not answer
 * @param failures per node, whether its command failed (unreachable, timed out, or the script failed): a node
 * neither answered nor failed is still under way
 */
record NodeReplies(List<@Nullable Object> replies, boolean[] failures) {

	/**
	 * Makes the replies of a round in which every node that did not answer failed (or none is waited for).
	 * @param replies one per node; {@code null} for a node that did not answer
	 */
	NodeReplies(List<@Nullable Object> replies) {
		this(replies, nulls(replies));
	}

	private static boolean[] nulls(List<@Nullable Object> replies) {
		boolean[] nulls = new boolean[replies.size()];
		for (int i = 0; i < nulls.length; i++) {
			nulls[i] = replies.get(i) == null;
		}
		return nulls;
	}

	/**
	 * Sends a command to every node at once and collects the replies; never fails: a node's failure is its
	 * {@code null} reply. Completes when the last node answered or timed out (each command is bounded by the
	 * per-node timeout).
	 * @param nodes the nodes
	 * @param command the command for one node, given the node and its index
	 * @return completes with the replies
	 */
	static CompletableFuture<NodeReplies> sendToAll(List<RedlockNode> nodes,
			BiFunction<RedlockNode, Integer, CompletableFuture<Object>> command) {
		return sendUntilQuorum(nodes, command, (reply) -> false, Integer.MAX_VALUE);
	}

	/**
	 * Sends a command to every node at once and completes as soon as the outcome is known: {@code quorum} nodes
	 * succeeded, or so many did not that {@code quorum} no longer can, or every node answered or timed out. For a
	 * command whose outcome is only whether a quorum succeeded (the token's record): that outcome is the same
	 * whichever replies came first. A node still silent then has a {@code null} reply (its command may still run:
	 * every script names its attempt, so a late one is harmless). Never fails.
	 * @param nodes the nodes
	 * @param command the command for one node, given the node and its index
	 * @param success whether a reply is a success
	 * @param quorum how many successes decide; above the number of nodes, every node is waited for
	 * @return completes with the replies known then
	 */
	static CompletableFuture<NodeReplies> sendUntilQuorum(List<RedlockNode> nodes,
			BiFunction<RedlockNode, Integer, CompletableFuture<Object>> command, Predicate<Object> success,
			int quorum) {
		int n = nodes.size();
		return sendUntilDecided(nodes, command, (replies) -> {
			int yes = 0;
			int no = 0;
			for (int i = 0; i < n; i++) {
				Object reply = replies.replies().get(i);
				if (reply != null && success.test(reply)) {
					yes++;
				}
				else if (reply != null || replies.failed(i)) {
					no++;
				}
			}
			return quorum <= n && (yes >= quorum || no > n - quorum);
		});
	}

	/**
	 * Sends a command to every node at once and completes as soon as {@code decided} says the replies so far tell
	 * the outcome, or every node answered or timed out (each command is bounded by the per-node timeout). The
	 * caller's judgement must be one that no later reply can change, so that a round's outcome never depends on
	 * which replies happened to arrive first: where it needs the late replies, it waits for them. A node still
	 * silent then has a {@code null} reply (its command may still run: every script names its attempt, so a late
	 * one is harmless). Never fails.
	 * @param nodes the nodes
	 * @param command the command for one node, given the node and its index
	 * @param decided tells, from the replies so far (a node that failed has {@link #failed(int)}), whether the
	 * outcome is known; called on the thread of the reply that came last, one call at a time
	 * @return completes with the replies known then
	 */
	static CompletableFuture<NodeReplies> sendUntilDecided(List<RedlockNode> nodes,
			BiFunction<RedlockNode, Integer, CompletableFuture<Object>> command, Predicate<NodeReplies> decided) {
		int n = nodes.size();
		AtomicReferenceArray<@Nullable Object> replies = new AtomicReferenceArray<>(n);
		boolean[] failed = new boolean[n];
		AtomicInteger done = new AtomicInteger();
		CompletableFuture<NodeReplies> result = new CompletableFuture<>();
		for (int i = 0; i < n; i++) {
			int node = i;
			CompletableFuture<Object> reply;
			try {
				reply = command.apply(nodes.get(i), i);
			}
			catch (RuntimeException ex) {
				reply = CompletableFuture.failedFuture(ex);
			}
			reply.whenComplete((value, failure) -> {
				Object answer = (failure != null) ? null : value;
				NodeReplies known;
				synchronized (failed) {
					replies.set(node, answer);
					failed[node] = answer == null;
					int count = done.incrementAndGet();
					if (result.isDone()) {
						return;
					}
					List<@Nullable Object> snapshot = new ArrayList<>(n);
					boolean[] failures = new boolean[n];
					for (int j = 0; j < n; j++) {
						snapshot.add(replies.get(j));
						failures[j] = failed[j];
					}
					known = new NodeReplies(Collections.unmodifiableList(snapshot), failures);
					if (count < n && !decided.test(known)) {
						return;
					}
				}
				result.complete(known);
			});
		}
		return result;
	}

	/**
	 * Counts the nodes whose reply is the integer 1 (granted, recorded, extended, released).
	 * @return how many
	 */
	int ones() {
		int count = 0;
		for (Object reply : this.replies) {
			if (reply instanceof Long value && value == 1L) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Counts the nodes that answered.
	 * @return how many replies are not {@code null}
	 */
	int answered() {
		int count = 0;
		for (Object reply : this.replies) {
			if (reply != null) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Tells whether a node answered.
	 * @param node the node's index
	 * @return {@code true} if its reply is not {@code null}
	 */
	boolean answered(int node) {
		return this.replies.get(node) != null;
	}

	/**
	 * Tells whether a node's command failed: it could not be reached, did not answer within the per-node timeout,
	 * or its script failed.
	 * @param node the node's index
	 * @return {@code true} if it failed; {@code false} if it answered or is still under way
	 */
	boolean failed(int node) {
		return this.failures[node];
	}

}
