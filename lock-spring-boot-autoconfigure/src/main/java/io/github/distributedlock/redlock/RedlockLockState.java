package io.github.distributedlock.redlock;

import java.util.List;
import java.util.Objects;

import io.github.distributedlock.core.LockState;
import io.github.distributedlock.redis.RedisLockState;

/**
 * What the Redlock nodes hold for one lock right now, whoever holds it: what {@link RedlockLockInspector#inspect}
 * returns, and the {@code distributedlocks} endpoint shows. The fields of the Redis store's
 * {@link RedisLockState}, read over the nodes that answered: the lock is held by an owner that holds the key on a
 * quorum of them; each node's own view is in {@link #nodes()}. Immutable.
 *
 * @param key the lock key, without the key prefix
 * @param redisKey the key of the lock's hash on every node
 * @param type {@code "reentrant"} (a lock of this store on at least one node), {@code "none"} (no node has the key:
 * the lock is free), or {@code "foreign"} (a node has a key of another Redis type there, which refuses every vote on
 * that node, and which the library never deletes)
 * @param held whether one owner holds the key on a quorum of nodes (an owner {@code <attempt>~kept} is a minimum
 * hold that keeps the lock taken, by nobody, until it ends)
 * @param ttlMillis how long that quorum keeps it without a renewal: the quorum-th longest remaining TTL among the
 * holder's nodes, in milliseconds; 0 when not held
 * @param owners the holder's attempt id, when held; empty otherwise (an owner on a minority of nodes, such as an
 * attempt that lost a vote and is being withdrawn, is only in {@link #nodes()})
 * @param waiting always 0: Redlock keeps no queue of waiters on its nodes (a node only marks that a waiter was
 * refused, see {@link NodeLock#waited()})
 * @param holders the holder with {@code ttlMillis} as its lease, when held
 * @param permits 1 for a lock, 0 when no node has the key
 * @param quorum how many nodes make a quorum
 * @param nodes each configured node's view, in the configured order
 */
public record RedlockLockState(String key, String redisKey, String type, boolean held, long ttlMillis,
		List<String> owners, int waiting, List<RedisLockState.Holder> holders, int permits, int quorum,
		List<NodeLock> nodes) implements LockState {

	/**
	 * Checks and copies the components.
	 * @param key the lock key
	 * @param redisKey the hash's key on every node
	 * @param type the kind of lock
	 * @param held whether an owner holds it on a quorum
	 * @param ttlMillis how long that quorum keeps it
	 * @param owners the holder, when held
	 * @param waiting always 0
	 * @param holders the holder with its lease
	 * @param permits 1, or 0 when no node has the key
	 * @param quorum the quorum
	 * @param nodes each node's view
	 * @throws NullPointerException if a component is {@code null}
	 */
	public RedlockLockState {
		Objects.requireNonNull(key, "key must not be null");
		Objects.requireNonNull(redisKey, "redisKey must not be null");
		Objects.requireNonNull(type, "type must not be null");
		owners = List.copyOf(owners);
		holders = List.copyOf(holders);
		nodes = List.copyOf(nodes);
	}

	/**
	 * One node's view of the lock.
	 *
	 * @param node the node, {@code host:port}
	 * @param state {@code "held"}, {@code "free"}, {@code "foreign"} (a key of another Redis type) or
	 * {@code "not answering"}
	 * @param owner the attempt id holding the key on this node, {@code ""} if none
	 * @param ttlMillis the key's remaining TTL on this node, in milliseconds (0 without a key)
	 * @param fencingToken the fencing token recorded there for the holder, 0 if none yet
	 * @param waited whether a waiting attempt was refused there while it was held
	 */
	public record NodeLock(String node, String state, String owner, long ttlMillis, long fencingToken,
			boolean waited) {
	}

}
