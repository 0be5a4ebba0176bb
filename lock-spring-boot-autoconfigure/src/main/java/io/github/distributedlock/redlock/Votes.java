package io.github.distributedlock.redlock;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of phase 1 of one acquisition round (the votes of {@code vote.lua}, every node's answer or failure):
 * which nodes granted the key to the attempt, the greatest token basis among every node that answered, granting or
 * refusing (a node's basis is the greater of its token counter and its clock in microseconds), and whether the
 * granting nodes are a quorum of the configured nodes.
 * Immutable and thread-safe.
 *
 * @param granted per node, whether it granted the key to this attempt
 * @param refused per node, whether it answered by the time the round decided and refused (another attempt holds
 * the key there, or this attempt was withdrawn there): its vote ran and took nothing, and no command of it is under
 * way, so a withdrawal has nothing to do there
 * @param answered per node, whether it answered at all (a node that did not may still run the vote later; it may
 * turn {@code true} later, see {@link #of(NodeReplies, boolean[])})
 * @param greatestCounter the greatest token basis among the nodes that answered, granting or refusing (0 if none)
 * @param shortestRefusal the shortest remaining lease of another holder among the refusing nodes, in
 * milliseconds, or -1 if no node reported one
 * @param largestHolder how many nodes refused for one other attempt, the one that has the most of them (0 if
 * none): a quorum of them means that attempt holds the lock, and this one waits for its release
 * @param greatestClock the greatest node clock ({@code TIME}, in microseconds) among the answers (0 if none), for
 * {@link RedlockClocks}
 */
record Votes(boolean[] granted, boolean[] refused, boolean[] answered, long greatestCounter, long shortestRefusal,
		int largestHolder, long greatestClock) {

	/**
	 * Reads the replies of {@code vote.lua}.
	 * @param replies one per node
	 * @return the votes
	 */
	static Votes of(NodeReplies replies) {
		return of(replies, new boolean[replies.replies().size()]);
	}

	/**
	 * Reads the replies of {@code vote.lua} into an array of answers that the votes still under way fill in as
	 * they answer, after the quorum decided. Read without synchronisation: a late answer not seen yet only costs
	 * a withdrawal marker that was not needed, never a missing one (the array only turns {@code true}, and only
	 * once the node ran the vote).
	 * @param replies one per node
	 * @param answered per node, whether its vote answered; set here for every reply known now
	 * @return the votes, whose {@link #answered()} is that array
	 */
	static Votes of(NodeReplies replies, boolean[] answered) {
		int n = replies.replies().size();
		boolean[] granted = new boolean[n];
		boolean[] refused = new boolean[n];
		long greatest = 0;
		long clock = 0;
		long shortest = -1;
		Map<Object, Integer> holders = new HashMap<>();
		for (int i = 0; i < n; i++) {
			if (replies.replies().get(i) instanceof List<?> reply && reply.size() >= 2
					&& reply.get(0) instanceof Long result && reply.get(1) instanceof Long value) {
				answered[i] = true;
				if (result == 1L) {
					granted[i] = true;
					greatest = Math.max(greatest, value);
					if (reply.size() >= 3 && reply.get(2) instanceof Long time) {
						clock = Math.max(clock, time);
					}
					continue;
				}
				refused[i] = true;
				if (reply.size() >= 4 && reply.get(3) instanceof Long basis) {
					greatest = Math.max(greatest, basis);
				}
				if (reply.size() >= 5 && reply.get(4) instanceof Long time) {
					clock = Math.max(clock, time);
				}
				if (result == 0L && value > 0) {
					shortest = (shortest < 0) ? value : Math.min(shortest, value);
				}
				if (result == 0L && reply.size() >= 3 && reply.get(2) != null && !"".equals(reply.get(2))) {
					holders.merge(reply.get(2), 1, Integer::sum);
				}
			}
		}
		int largest = holders.values().stream().mapToInt(Integer::intValue).max().orElse(0);
		return new Votes(granted, refused, answered, greatest, shortest, largest, clock);
	}

	/**
	 * Counts the granting nodes.
	 * @return how many granted
	 */
	int grants() {
		int count = 0;
		for (boolean grant : this.granted) {
			if (grant) {
				count++;
			}
		}
		return count;
	}

	/**
	 * Tells whether the granting nodes are a majority of the configured ones.
	 * @param quorum the quorum, {@code N / 2 + 1}
	 * @return {@code true} if at least {@code quorum} nodes granted
	 */
	boolean hasQuorum(int quorum) {
		return grants() >= quorum;
	}

	/**
	 * Tells whether the votes recorded the token the attempt proposed ({@code vote.lua}'s {@code ARGV[4]}): it is
	 * above the basis of every node that answered, so each of them raised its token counter to it (and each granting
	 * one set it on the attempt's key) in the same script that answered; the round then needs no
	 * {@code record.lua}, and this proposal is its token. It is the token {@link #nextToken()} would have been
	 * recorded as, but larger: above every basis answered.
	 * @param proposal the proposed token, 0 for none
	 * @return {@code true} if the proposal is the attempt's token, already recorded
	 */
	boolean recorded(long proposal) {
		return proposal > 0 && proposal > this.greatestCounter;
	}

	/**
	 * Returns the fencing token this attempt mints: one more than the greatest basis of every node that answered
	 * its vote. Any earlier holder recorded its token on every node that answered its own vote, a quorum at least
	 * (the granting ones), which shares a node with this attempt's granting quorum: the token is greater than every
	 * earlier holder's while one node that recorded it kept its counter and answers this vote (see
	 * {@code docs/redlock.md}, Fencing tokens); otherwise by the clocks, as long as they agree to within the time
	 * between the two acquisitions.
	 * @return the token, at least 1
	 */
	long nextToken() {
		return this.greatestCounter + 1;
	}

}
