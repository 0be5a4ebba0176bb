package io.github.distributedlock.redlock;

/**
 * The keys of one lock on every node: the lock's hash (with the lease as TTL) and its fencing-token counter,
 * a persistent key that outlives the lock. Immutable and thread-safe.
 *
 * @param lock the lock's hash: {@code <prefix><key>}
 * @param counter the token counter: {@code <prefix><key>~token}
 */
record RedlockKeys(String lock, String counter) {

	/**
	 * Returns the keys of a lock.
	 * @param prefix the key prefix
	 * @param key the lock key
	 * @return its keys
	 */
	static RedlockKeys of(String prefix, String key) {
		String lock = prefix + key;
		return new RedlockKeys(lock, lock + "~token");
	}

	/**
	 * Returns the withdrawal marker of one attempt: {@code <prefix><key>~withdrawn:<attempt>}.
	 * @param attempt the attempt id
	 * @return the marker's key
	 */
	String withdrawn(String attempt) {
		return this.lock + "~withdrawn:" + attempt;
	}

}
