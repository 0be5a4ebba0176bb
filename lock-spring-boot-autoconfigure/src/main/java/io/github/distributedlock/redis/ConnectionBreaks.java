package io.github.distributedlock.redis;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the connections of the client's Lettuce client that broke, and dates the last: the time between two
 * breaks is a <em>connection generation</em>. A command whose round trip spans a break may have been sent twice
 * (Lettuce re-sends what a broken connection did not answer: at-least-once delivery), and a restart or a failover
 * of Redis breaks every connection, so two commands sent and answered within one generation ran on one server, in
 * one life (see {@link ServerLife}). Told by {@link LettuceReconnects} as a connection closes, before anything is
 * sent again; never with Jedis, which sends nothing twice (the count stays 0). Thread-safe.
 */
final class ConnectionBreaks {

	/** What {@link #unbrokenSince} returns when a connection broke after the time it was given. */
	static final long BROKEN = -1;

	private final AtomicLong count = new AtomicLong();

	/** {@link System#nanoTime()} of the last break; read only once {@link #count} is above 0. */
	private volatile long lastAt;

	/** A connection broke: called as it closes, on its I/O thread. */
	void broke() {
		// dated first: a reader that sees the old count with the new date judges the safe way (broken)
		this.lastAt = System.nanoTime();
		this.count.incrementAndGet();
	}

	/**
	 * Returns how many connections broke so far: the current connection generation.
	 * @return the count; 0 with Jedis
	 */
	long count() {
		return this.count.get();
	}

	/**
	 * Returns the connection generation now, if no connection broke since a time.
	 * @param since a {@link System#nanoTime()} value, such as when a command was sent
	 * @return the generation ({@link #count()}), or {@link #BROKEN} if a connection broke at that time or after
	 */
	long unbrokenSince(long since) {
		long before = this.count.get();
		long last = this.lastAt;
		if (before != this.count.get() || (before > 0 && last - since >= 0)) {
			return BROKEN;
		}
		return before;
	}

}
