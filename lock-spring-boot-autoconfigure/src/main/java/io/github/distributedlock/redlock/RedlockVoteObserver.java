package io.github.distributedlock.redlock;

import java.util.List;

/**
 * Told by a {@link RedlockLockClient} how each node answered each vote (phase 1 of an acquisition round): what
 * per-node metrics need. A vote is told when its node answered or failed, also when that was after the round
 * had its quorum. Callbacks run on the Redis client's I/O threads: they must be quick, must never block and must
 * not throw; they may run concurrently, so implementations are thread-safe. Needs no metrics library: the
 * Micrometer implementation is {@code io.github.distributedlock.metrics.RedlockVoteMeters}.
 */
public interface RedlockVoteObserver {

	/** An observer that does nothing. */
	RedlockVoteObserver NONE = new RedlockVoteObserver() {
	};

	/**
	 * Returns an observer that tells each of the given ones, in their order.
	 * @param observers the observers
	 * @return {@link #NONE} for none, the one for one, else one that tells each
	 */
	static RedlockVoteObserver of(List<RedlockVoteObserver> observers) {
		List<RedlockVoteObserver> all = List.copyOf(observers);
		if (all.size() < 2) {
			return all.isEmpty() ? NONE : all.get(0);
		}
		return new RedlockVoteObserver() {

			@Override
			public void nodes(List<String> nodes) {
				all.forEach((observer) -> observer.nodes(nodes));
			}

			@Override
			public void voted(String node, VoteOutcome outcome) {
				all.forEach((observer) -> observer.voted(node, outcome));
			}

		};
	}

	/**
	 * Told once, when the observer is set on a client: the nodes it will tell votes of, so that their meters
	 * exist from the start.
	 * @param nodes each node's {@code host:port}, in the configured order
	 */
	default void nodes(List<String> nodes) {
	}

	/**
	 * A node answered a vote, or did not.
	 * @param node the node's {@code host:port} (never its password)
	 * @param outcome how it answered
	 */
	default void voted(String node, VoteOutcome outcome) {
	}

	/**
	 * How one node answered one vote.
	 */
	enum VoteOutcome {

		/** It granted the key to the attempt. */
		GRANTED,

		/** It refused: another attempt holds the key there, or the attempt was withdrawn there. */
		REFUSED,

		/** It did not answer within the per-node timeout. */
		TIMEOUT,

		/** It could not be reached (refused connection, not connected), or the script failed there. */
		ERROR;

		/**
		 * Returns the outcome's name as the meters tag it.
		 * @return {@code granted}, {@code refused}, {@code timeout} or {@code error}
		 */
		public String tag() {
			return name().toLowerCase(java.util.Locale.ROOT);
		}

	}

}
