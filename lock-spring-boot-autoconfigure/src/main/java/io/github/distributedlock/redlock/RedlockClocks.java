package io.github.distributedlock.redlock;

import java.util.concurrent.TimeUnit;

/**
 * The greatest clock of a client's Redlock nodes as its votes last saw it, carried forward on this JVM's monotonic
 * clock, so that a vote can propose the token it will most likely be able to take ({@code vote.lua}'s
 * {@code ARGV[4]}): a proposal above the basis (the greater of the key's token counter and the node's clock) of
 * every node that answers is recorded by the vote itself, and the round skips {@code record.lua}. A proposal that
 * turns out too low costs nothing but that record round, which chooses the token as before.
 * <p>
 * An observation is the greatest clock ({@code TIME}, in microseconds) a round's answers carried, taken as if it had
 * been read when the round's votes were sent ({@link System#nanoTime()} then): the nodes read it later, on the
 * vote's arrival, so the estimate (that clock plus the time since the send) is at or above their clocks, ahead by
 * that vote's way out. A proposal is the estimate plus a margin of {@value #MARGIN_MICROS} µs, for a next vote
 * that takes longer on its way out. The greatest observation of a window of {@value #FRESH_MILLIS} ms is kept (so
 * that the proposals do not go back when a round's vote went out faster), then the window starts again from the
 * next one; without an observation in the last {@value #FRESH_MILLIS} ms there is no proposal, so that a difference
 * between this JVM's clock rate and the nodes' cannot carry the estimate away from their clocks. A proposal is thus
 * ahead of the greatest node clock by at most the slowest vote's way out in the last two windows plus the margin,
 * well under the node timeout: tokens stay clock-sized, as the bases the record round mints from are (see
 * {@code docs/redlock.md}, Fencing tokens).
 * <p>
 * Thread-safe: every vote of the client observes, every round proposes.
 */
final class RedlockClocks {

	/** What a proposal adds to the estimated greatest node clock, in microseconds. */
	static final long MARGIN_MICROS = 1_000;

	/** How long an observation is used, in milliseconds. */
	static final long FRESH_MILLIS = 1_000;

	private static final long FRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(FRESH_MILLIS);

	/**
	 * The greatest node clock observed since {@link #windowStart} minus the {@link System#nanoTime()} its round was
	 * sent at, in microseconds.
	 */
	private long offsetMicros;

	/** The {@link System#nanoTime()} of the first observation {@link #offsetMicros} is the greatest since. */
	private long windowStart;

	/** The {@link System#nanoTime()} of the last observation, if {@link #seen}. */
	private long lastSeen;

	/** Whether anything was observed yet. */
	private boolean seen;

	/**
	 * Takes in the greatest clock one round's answers carried.
	 * @param clockMicros the greatest node clock ({@code TIME}) among the answers, in microseconds; ignored if not
	 * positive (no answer carried one)
	 * @param sentNanos the {@link System#nanoTime()} when the round's votes were sent
	 * @param nowNanos the {@link System#nanoTime()} now, when the round decided
	 */
	synchronized void observe(long clockMicros, long sentNanos, long nowNanos) {
		if (clockMicros <= 0) {
			return;
		}
		long offset = clockMicros - sentNanos / 1_000;
		if (!this.seen || nowNanos - this.windowStart > FRESH_NANOS) {
			this.offsetMicros = offset;
			this.windowStart = nowNanos;
		}
		else if (offset > this.offsetMicros) {
			this.offsetMicros = offset;
		}
		this.lastSeen = nowNanos;
		this.seen = true;
	}

	/**
	 * Returns the token to propose now.
	 * @param nowNanos the {@link System#nanoTime()} now
	 * @return the estimated greatest node clock plus the margin, in microseconds, or 0 (no proposal) without an
	 * observation in the last {@value #FRESH_MILLIS} ms
	 */
	synchronized long proposal(long nowNanos) {
		if (!this.seen || nowNanos - this.lastSeen > FRESH_NANOS) {
			return 0;
		}
		return this.offsetMicros + nowNanos / 1_000 + MARGIN_MICROS;
	}

}
