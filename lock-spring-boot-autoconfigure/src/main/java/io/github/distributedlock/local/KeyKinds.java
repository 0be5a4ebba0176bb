package io.github.distributedlock.local;

import io.github.distributedlock.annotation.LockType;

/**
 * The kinds of keys of a {@link LocalLockStore} in words, and the refusal of a key's mixed use: while a key is in
 * use it is one kind (a reentrant lock, a read/write lock, or a semaphore) with one permit count.
 */
final class KeyKinds {

	private KeyKinds() {
	}

	/**
	 * The refusal of an acquisition with another permit count than the key is in use with.
	 * @param key the lock key as the caller named it
	 * @param storeKey the key in the store
	 * @param kind what the key is in use as, from {@link #of}
	 * @param asked the permit count the acquisition asks for
	 * @return the exception to throw, naming the key and both permit counts
	 */
	static IllegalStateException mixedUse(String key, String storeKey, String kind, int asked) {
		return new IllegalStateException("Lock '" + key + "' is " + kind + "; this acquisition asks for " + asked
				+ " (store key '" + storeKey + "'): one key is one kind of lock with one permit count, give each "
				+ "its own keys");
	}

	/**
	 * A kind of key in words with its permit count, such as "a semaphore with 3 permits".
	 * @param permits the permit count
	 * @param type the lock type of a key with one permit
	 * @return the words, starting with an article
	 */
	static String of(int permits, LockType type) {
		if (permits > 1) {
			return "a semaphore with " + permits + " permits";
		}
		return (type == LockType.REENTRANT) ? "a reentrant lock (1 permit)" : "a read/write lock (1 permit)";
	}

}
