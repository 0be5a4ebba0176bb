package io.github.distributedlock.annotation;

/**
 * What happens to the running work of a {@link DistributedLock} method (or a locked call of the template) when
 * this client learns that its lock was lost: its lease ran out before a renewal reached Redis, a hard lease
 * ({@code autoRenew = false}) ended before the release, or the lock was deleted there. Whatever the choice, the release then throws a
 * {@link io.github.distributedlock.core.LockLostException}, and a Spring transaction committing under the lost
 * lock is rolled back (the commit guard).
 */
public enum OnLockLoss {

	/**
	 * The work goes on; the loss is reported when it ends, at the release (as a
	 * {@link io.github.distributedlock.core.LockLostException}), and to observers (event, meter, log) when
	 * learnt. On {@code @DistributedLock}, {@code NONE} (the attribute's default) means
	 * {@code distributed-lock.on-lost}, which is {@code none} unless configured otherwise.
	 */
	NONE,

	/**
	 * The work is stopped as soon as the loss is learnt: a blocking holder's thread is interrupted once (only
	 * while it still runs the locked work; the flag is cleared when the locked call ends, which then throws
	 * {@link io.github.distributedlock.core.LockLostException}, or the work's own exception with it suppressed);
	 * a method returning a {@code CompletableFuture} has its future failed with {@code LockLostException} and
	 * the stage it returned cancelled; a {@code Mono} or {@code Flux} signals {@code LockLostException}
	 * downstream and cancels its upstream.
	 */
	INTERRUPT

}
