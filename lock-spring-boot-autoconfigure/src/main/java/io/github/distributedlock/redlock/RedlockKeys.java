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
	 * Returns the release channel of a key prefix, as the Redis store names it: it starts with the prefix, so
	 * that one ACL pattern covers keys and channels ({@code ~lock:* &lock:*}).
	 * @param prefix the key prefix
	 * @return {@code <prefix>__released}
	 */
	static String channel(String prefix) {
		return prefix + "__released";
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
