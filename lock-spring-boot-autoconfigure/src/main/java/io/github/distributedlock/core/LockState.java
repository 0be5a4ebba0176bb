package io.github.distributedlock.core;

import java.util.List;

/**
 * What a lock store holds for one lock right now, whoever holds it, as the {@code distributedlocks} Actuator
 * endpoint shows it ({@link LockInspector#inspect(String)}): each store's state adds what it knows (the Redis
 * store its waiters and holders' leases, the Redlock store each node's view). Implementations are immutable
 * values that the endpoint writes as JSON.
 */
public interface LockState {

	/**
	 * Returns the lock key.
	 * @return the key, without the key prefix
	 */
	String key();

	/**
	 * Returns the kind of lock the store found under the key.
	 * @return such as {@code "reentrant"}, {@code "none"} (the lock is free) or {@code "foreign"} (a value the
	 * library did not write, which it never deletes)
	 */
	String type();

	/**
	 * Tells whether someone holds the lock (or a minimum hold keeps it taken).
	 * @return {@code true} if the lock is taken
	 */
	boolean held();

	/**
	 * Returns the owners that hold it.
	 * @return their owner ids ({@code <client id>:<thread id>/<attempt>}), empty when free
	 */
	List<String> owners();

}
