package io.github.distributedlock.test;

import java.util.ArrayList;
import java.util.List;

/**
 * The holders of one lock key in the order they acquired it, across the faults of a test (a failover, a
 * partition): the first, the one that took over when the first one's lease ran out, and so on. Every fault
 * test records each acquisition of a contested key here ({@link #acquired(String, long)}), with its fencing
 * token, so that what must hold between successive holders is checked in one place: each one's token is
 * greater than every earlier holder's.
 * Thread-safe.
 */
public final class Succession {

	private final String key;

	private final List<String> holders = new ArrayList<>();

	private long lastToken;

	/**
	 * Starts an empty succession.
	 * @param key the lock key
	 */
	public Succession(String key) {
		this.key = key;
	}

	/**
	 * Records that {@code holder} acquired the key, after every holder recorded before.
	 * @param holder who acquired it (a name of the test's choosing, such as {@code "first instance"})
	 * @param fencingToken the token of its acquisition
	 * @return its place in the succession, from 0
	 * @throws AssertionError if the token is not greater than the token of the holder before
	 */
	public synchronized int acquired(String holder, long fencingToken) {
		if (fencingToken <= this.lastToken) {
			throw new AssertionError("The fencing token of " + holder + " (" + fencingToken
					+ ") is not greater than the one before it (" + this.lastToken + ") in " + this);
		}
		this.lastToken = fencingToken;
		this.holders.add(holder);
		return this.holders.size() - 1;
	}

	/**
	 * Returns the holders so far, first one first.
	 * @return a copy of the succession
	 */
	public synchronized List<String> holders() {
		return List.copyOf(this.holders);
	}

	@Override
	public synchronized String toString() {
		return "holders of '" + this.key + "': " + this.holders;
	}

}
