package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link RedlockLockClient} reaches its nodes and computes validity: what
 * {@code distributed-lock.redlock.*} configures. Immutable and thread-safe.
 *
 * @param nodes the Redis URLs of the independent primaries ({@code redis://} or {@code rediss://}, user and
 * password in the URL), at least 3; the quorum is {@code nodes.size() / 2 + 1}
 * @param nodeTimeout how long one node's answer to one command is waited for; well below the lease
 * @param driftFactor the clock drift allowed for, as a fraction of the lease (the drift is
 * {@code driftFactor * lease + 2 ms})
 * @param retryDelay the longest random delay between two acquisition rounds of one waiting acquisition (after a
 * split vote; a round refused by a holder waits for its release notification, at most this long)
 * @param minValidity the shortest validity an acquisition accepts: one left with less is released and retried
 * @param keyPrefix the prefix of every key the client writes on the nodes
 */
public record RedlockSettings(List<String> nodes, Duration nodeTimeout, double driftFactor, Duration retryDelay,
		Duration minValidity, String keyPrefix) {

	/** The fixed part of the drift, in milliseconds, added to {@code driftFactor * lease} (redis.io's 2 ms). */
	public static final long DRIFT_FIXED_MILLIS = 2;

	/**
	 * Checks and copies the values.
	 * @param nodes the node URLs
	 * @param nodeTimeout the per-node timeout
	 * @param driftFactor the drift factor
	 * @param retryDelay the longest retry delay
	 * @param minValidity the shortest validity accepted
	 * @param keyPrefix the key prefix
	 * @throws IllegalArgumentException if fewer than 3 nodes are given, a duration is not positive (the minimum
	 * validity may be zero) or the drift factor is outside [0, 0.5)
	 */
	public RedlockSettings {
		nodes = List.copyOf(nodes);
		Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		if (nodes.size() < 3) {
			throw new IllegalArgumentException("Redlock needs at least 3 nodes, " + nodes.size() + " given");
		}
		if (nodeTimeout.isNegative() || nodeTimeout.isZero() || retryDelay.isNegative() || retryDelay.isZero()) {
			throw new IllegalArgumentException("The node timeout and the retry delay must be positive, were "
					+ nodeTimeout + " and " + retryDelay);
		}
		if (minValidity.isNegative()) {
			throw new IllegalArgumentException("The minimum validity must not be negative, was " + minValidity);
		}
		if (!(driftFactor >= 0 && driftFactor < 0.5)) {
			throw new IllegalArgumentException("The drift factor must be at least 0 and below 0.5, was " + driftFactor);
		}
	}

	/**
	 * Returns the quorum: a majority of the configured nodes, never of the reachable ones.
	 * @return {@code nodes().size() / 2 + 1}
	 */
	public int quorum() {
		return this.nodes.size() / 2 + 1;
	}

	/**
	 * Returns the drift allowed for on a lease: the nodes' clocks may run that much faster than this client's.
	 * @param leaseMillis the lease, in milliseconds
	 * @return {@code driftFactor * lease + 2 ms}, in nanoseconds
	 */
	public long driftNanos(long leaseMillis) {
		return (long) (this.driftFactor * leaseMillis * 1_000_000L) + DRIFT_FIXED_MILLIS * 1_000_000L;
	}

}
