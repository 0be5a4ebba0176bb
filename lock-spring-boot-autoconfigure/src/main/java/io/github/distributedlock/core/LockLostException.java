package io.github.distributedlock.core;

import java.time.Duration;

/**
 * The lock was no longer held when its holder released it: its lease ran out before renewal (a hard lease
 * without auto-renew, or renewal failing for longer than the lease), or it was removed in Redis. Another
 * owner may have run the guarded code at the same time.
 * <p>
 * Thrown at release: after guarded code that returned normally it replaces the result; after guarded code
 * that threw, that exception propagates with this one added as {@linkplain Throwable#getSuppressed()
 * suppressed}. The release never removes another owner's lock.
 */
public class LockLostException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	/** The lock key that was lost, without the Redis key prefix. */
	private final String key;

	/**
	 * Creates the exception.
	 * @param key the lock key (without the Redis key prefix)
	 * @param reason why the lock was lost, completing the message
	 */
	public LockLostException(String key, String reason) {
		super("Lock '" + key + "' was lost before its release: " + reason);
		this.key = key;
	}

	/**
	 * Creates the exception of {@link LockHandle#checkHeld(Duration)} for a lock not known lost whose confirmed
	 * lease ends within the margin.
	 * @param key the lock key (without the Redis key prefix)
	 * @param left how long the lease is still confirmed for (zero or negative when it ended)
	 * @param margin the margin asked for
	 * @return the exception
	 */
	public static LockLostException confirmedLeaseEnding(String key, Duration left, Duration margin) {
		return new LockLostException(key, "its confirmed lease ends in " + Math.max(0, left.toMillis())
				+ " ms, within the margin of " + margin.toMillis() + " ms (its renewals may have stopped)");
	}

	/**
	 * Returns the lock key that was lost.
	 * @return the lock key, without the Redis key prefix
	 */
	public String getKey() {
		return this.key;
	}

}
