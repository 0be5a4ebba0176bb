package io.github.distributedlock.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who is inside a section that a lock or a semaphore guards, as the owners record it from inside: how many
 * at once (now and at most), and the fencing tokens they held, so that a test checks the invariants of
 * mutual exclusion and of permits. Thread-safe.
 */
public final class Occupancy {

	private final AtomicInteger inside = new AtomicInteger();

	private final AtomicInteger maxInside = new AtomicInteger();

	private final AtomicLong maxToken = new AtomicLong();

	private final AtomicInteger staleTokens = new AtomicInteger();

	private final List<Long> tokens = new CopyOnWriteArrayList<>();

	/**
	 * Records an owner entering; call it under the lock, first thing.
	 */
	public void enter() {
		this.maxInside.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
	}

	/**
	 * Records an owner entering with the fencing token of its acquisition.
	 * @param token the token
	 * @param seenBefore what {@link #maxToken()} returned before the owner started to acquire: every token
	 * recorded by then was handed out before this acquisition, so this one must be greater
	 */
	public void enter(long token, long seenBefore) {
		enter();
		this.tokens.add(token);
		if (token <= seenBefore) {
			this.staleTokens.incrementAndGet();
		}
		this.maxToken.accumulateAndGet(token, Math::max);
	}

	/**
	 * Records an owner leaving; call it under the lock, last thing.
	 */
	public void exit() {
		this.inside.decrementAndGet();
	}

	/** How many owners were inside at once at most. */
	public int maxInside() {
		return this.maxInside.get();
	}

	/** The greatest token recorded so far; 0 before any. */
	public long maxToken() {
		return this.maxToken.get();
	}

	/** How many owners entered with a token not greater than one recorded before they started to acquire. */
	public int staleTokens() {
		return this.staleTokens.get();
	}

	/** Every token recorded, in the order the owners entered. */
	public List<Long> tokens() {
		return List.copyOf(this.tokens);
	}

	/**
	 * Pauses the calling owner inside, as work would, so that others pile up at the gate.
	 * @param millis how long
	 */
	public static void work(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while working under a lock", ex);
		}
	}

}
