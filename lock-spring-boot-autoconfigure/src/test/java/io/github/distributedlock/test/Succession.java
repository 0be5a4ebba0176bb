package io.github.distributedlock.test;

import java.util.ArrayList;
import java.util.List;

/**
 * The holders of one lock key in the order they acquired it, across the faults of a test (a failover, a
 * partition): the first, the one that took over when the first one's lease ran out, and so on. Every fault
 * test records each acquisition of a contested key here ({@link #acquired(String)}), so that what must hold
 * between successive holders, such as fencing tokens that grow with each one, is checked in one place.
 * Thread-safe.
 */
public final class Succession {

	private final String key;

	private final List<String> holders = new ArrayList<>();

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
	 * @return its place in the succession, from 0
	 */
	public synchronized int acquired(String holder) {
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
