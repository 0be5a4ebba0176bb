package io.github.distributedlock.test;

import java.util.List;

import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.redis.RedisLockClient;

/**
 * The owner ids that a lock client records in Redis for the calling thread's holds. An owner id names one
 * acquisition attempt, {@code <client id>:<thread id>/<attempt>}, so tests read it from the client's holds.
 */
public final class Owners {

	private Owners() {
	}

	/**
	 * Returns the start shared by every owner id of the calling thread in a client's locks.
	 * @param client the lock client
	 * @return {@code <client id>:<thread id>/}
	 */
	public static String prefix(RedisLockClient client) {
		return client.getClientId() + ":" + Thread.currentThread().getId() + "/";
	}

	/**
	 * Returns the owner id of the calling thread's one hold in a client.
	 * @param client the lock client
	 * @return the owner id that Redis records for that hold
	 * @throws IllegalStateException if the thread holds no lock of the client, or holds several with distinct ids
	 */
	public static String current(RedisLockClient client) {
		return current(client, null);
	}

	/**
	 * Returns the owner id of the calling thread's hold of one lock in a client.
	 * @param client the lock client
	 * @param key the lock key, or {@code null} for the thread's one hold of any lock
	 * @return the owner id that Redis records for that hold
	 * @throws IllegalStateException if the thread holds no such lock, or several with distinct ids
	 */
	public static String current(RedisLockClient client, String key) {
		String prefix = prefix(client);
		List<String> owners = client.heldLocks().stream()
			.filter((held) -> key == null || held.key().equals(key))
			.map(HeldLock::owner)
			.filter((o) -> o.startsWith(prefix))
			.distinct()
			.toList();
		if (owners.size() != 1) {
			throw new IllegalStateException("Expected one hold of " + prefix + " but found " + owners);
		}
		return owners.get(0);
	}

}
