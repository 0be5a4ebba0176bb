package io.github.distributedlock.redis;

/**
 * How a client listens for release notifications and grants, in its {@link NotificationMode}: one classic
 * subscription for every lock ({@link ClassicSubscription}), or sharded subscriptions to the slots its waiters
 * wait on ({@link ShardedSubscription}). Implementations are thread-safe.
 */
interface NotificationSubscription extends AutoCloseable {

	/**
	 * Called when a registered waiter of a key first waits: its first try did not get the lock.
	 * @param redisKey the lock's Redis key
	 */
	void waiterRegistered(String redisKey);

	/**
	 * Called after a waiter of a key that waited unregistered.
	 * @param redisKey the lock's Redis key
	 */
	void waiterUnregistered(String redisKey);

	/**
	 * Tells whether notifications arrive.
	 * @return {@code true} while the subscription is up
	 */
	boolean isListening();

	/** Stops listening; nothing is subscribed again. */
	@Override
	void close();

}
