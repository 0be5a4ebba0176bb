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
 */
record NodeReplies(List<@Nullable Object> replies) {

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
	 * succeeded, or so many did not that {@code quorum} no longer can, or every node answered or timed out. A
	 * node still silent then has a {@code null} reply (its command may still run: every script names its attempt,
	 * so a late one is harmless). Never fails.
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
		AtomicReferenceArray<@Nullable Object> replies = new AtomicReferenceArray<>(n);
		AtomicInteger successes = new AtomicInteger();
		AtomicInteger others = new AtomicInteger();
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
				replies.set(node, answer);
				boolean succeeded = answer != null && success.test(answer);
				int yes = succeeded ? successes.incrementAndGet() : successes.get();
				int no = succeeded ? others.get() : others.incrementAndGet();
				if (yes + no == n || (quorum <= n && (yes >= quorum || no > n - quorum))) {
					List<@Nullable Object> known = new ArrayList<>(n);
					for (int j = 0; j < n; j++) {
						known.add(replies.get(j));
					}
					result.complete(new NodeReplies(Collections.unmodifiableList(known)));
				}
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

}
