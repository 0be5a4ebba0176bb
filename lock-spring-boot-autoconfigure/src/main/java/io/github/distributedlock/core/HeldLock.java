package io.github.distributedlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import io.github.distributedlock.annotation.LockType;

/**
 * A snapshot of one lock that an owner of a {@link LockClient} holds, as the client knows it (no round trip):
 * what {@link LockClient#heldLocks()} lists, for diagnostics such as the Actuator endpoint. Its key, type, owner,
 * start and lease are required: {@code null} is a {@link NullPointerException}.
 *
 * @param key the lock key, without any store prefix
 * @param type the lock type
 * @param owner the owner id: on Redis its acquisition attempt's, {@code <client id>:<thread id>/<attempt>} (or
 * {@code <client id>:async-<n>/<attempt>} for an owner that is not a thread); on the local store, which has no
 * attempts, {@code <client id>:<thread id>}
 * @param holdCount the owner's holds, re-entries included
 * @param fencingToken the fencing token of the acquisition
 * @param heldSince when it was acquired (wall clock of this JVM, to the precision of its clock)
 * @param lease the lease the lock was acquired with
 * @param autoRenew whether the watchdog renews it
 * @param lost whether it is known to be lost
 * @param permits the key's permit count: 1 for a lock, more for a semaphore (this owner holds one of them)
 */
public record HeldLock(String key, LockType type, String owner, int holdCount, long fencingToken, Instant heldSince,
		Duration lease, boolean autoRenew, boolean lost, int permits) {

	/**
	 * Checks the components.
	 * @param key the lock key, without any store prefix
	 * @param type the lock type
	 * @param owner the owner id, {@code <client id>:<thread id>/<attempt>} on Redis (see the record's description)
	 * @param holdCount the owner's holds, re-entries included
	 * @param fencingToken the fencing token of the acquisition
	 * @param heldSince when it was acquired (wall clock of this JVM, to the precision of its clock)
	 * @param lease the lease the lock was acquired with
	 * @param autoRenew whether the watchdog renews it
	 * @param lost whether it is known to be lost
	 * @param permits the key's permit count: 1 for a lock, more for a semaphore
	 * @throws NullPointerException if a required component is {@code null}
	 */
	public HeldLock {
		Objects.requireNonNull(key, "key must not be null");
		Objects.requireNonNull(type, "type must not be null");
		Objects.requireNonNull(owner, "owner must not be null");
		Objects.requireNonNull(heldSince, "heldSince must not be null");
		Objects.requireNonNull(lease, "lease must not be null");
	}

	/**
	 * Creates the snapshot of a lock (one permit).
	 * @param key the lock key, without any store prefix
	 * @param type the lock type
	 * @param owner the owner id
	 * @param holdCount the owner's holds, re-entries included
	 * @param fencingToken the fencing token of the acquisition
	 * @param heldSince when it was acquired
	 * @param lease the lease the lock was acquired with
	 * @param autoRenew whether the watchdog renews it
	 * @param lost whether it is known to be lost
	 * @throws NullPointerException if a required component is {@code null}
	 */
	public HeldLock(String key, LockType type, String owner, int holdCount, long fencingToken, Instant heldSince,
			Duration lease, boolean autoRenew, boolean lost) {
		this(key, type, owner, holdCount, fencingToken, heldSince, lease, autoRenew, lost, 1);
	}

}
