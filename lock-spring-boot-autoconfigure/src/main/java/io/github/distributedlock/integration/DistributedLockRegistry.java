package io.github.distributedlock.integration;

import java.util.Objects;

import io.github.distributedlock.core.DistributedLockTemplate;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A Spring Integration {@link LockRegistry} backed by a {@link DistributedLockTemplate}: {@link #obtain(Object)}
 * gives a lock on the same key as {@link DistributedLockTemplate#getLock(String)}, so a lock taken through
 * Spring Integration and one taken through the template or {@code @DistributedLock} are one lock, across every
 * instance.
 * <p>
 * The locks are reentrant and owned by the thread that locks them, with the template's default lease, renewed by
 * the lock client's watchdog while held; {@link DistributedLock#lock(java.time.Duration)} and
 * {@link DistributedLock#tryLock(java.time.Duration, java.time.Duration)} take another lease for one acquisition.
 * That is why this registry is not a {@code RenewableLockRegistry}: no holder needs to renew its lease by hand.
 * A lock whose lease was lost (the watchdog found it gone or taken over) cannot be re-entered: {@code tryLock}
 * then throws {@link io.github.distributedlock.core.LockLostException}, and its {@code unlock()} too, which is
 * how {@code LockRegistryLeaderInitiator} learns that its leadership is gone and publishes an
 * {@code OnRevokedEvent}.
 * <p>
 * The locks hold no state of their own (the lock client does), so {@link #obtain(Object)} keeps no cache and
 * needs no expiry of unused locks. Thread-safe.
 */
public class DistributedLockRegistry implements LockRegistry<DistributedLock> {

	private final DistributedLockTemplate template;

	/**
	 * Creates a registry on a template.
	 * @param template the template whose locks the registry gives out
	 */
	public DistributedLockRegistry(DistributedLockTemplate template) {
		this.template = Objects.requireNonNull(template, "template must not be null");
	}

	/**
	 * Returns the lock of a key: a new, stateless view of the same lock as
	 * {@code template.getLock(lockKey)}, cheap to obtain for every use. The locks of one key obtained from this
	 * registry are {@linkplain Object#equals(Object) equal} (with equal hash codes); those of another key or
	 * another registry are not.
	 * @param lockKey the lock key, a non-blank {@link String} (without the key prefix)
	 * @return the lock; {@link java.util.concurrent.locks.Lock#newCondition()} throws
	 * {@link UnsupportedOperationException}
	 * @throws IllegalArgumentException if the key is not a {@code String}, or is blank
	 */
	@Override
	public DistributedLock obtain(Object lockKey) {
		if (!(lockKey instanceof String key)) {
			throw new IllegalArgumentException("DistributedLockRegistry needs a String lock key, but got "
					+ ((lockKey != null) ? lockKey.getClass().getName() + " '" + lockKey + "'" : "null"));
		}
		return new RegistryLock(this, this.template.getClient(), key, this.template.getLock(key));
	}

	@Override
	public String toString() {
		return "DistributedLockRegistry[" + this.template.getClient().getClass().getSimpleName() + "]";
	}

}
