package io.github.distributedlock.redlock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

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
		List<CompletableFuture<@Nullable Object>> sent = new ArrayList<>(nodes.size());
		for (int i = 0; i < nodes.size(); i++) {
			CompletableFuture<Object> reply;
			try {
				reply = command.apply(nodes.get(i), i);
			}
			catch (RuntimeException ex) {
				reply = CompletableFuture.failedFuture(ex);
			}
			sent.add(reply.handle((value, failure) -> (failure != null) ? null : value));
		}
		return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0])).thenApply((done) -> {
			List<@Nullable Object> replies = new ArrayList<>(sent.size());
			for (CompletableFuture<@Nullable Object> reply : sent) {
				replies.add(reply.join());
			}
			return new NodeReplies(Collections.unmodifiableList(replies));
		});
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
