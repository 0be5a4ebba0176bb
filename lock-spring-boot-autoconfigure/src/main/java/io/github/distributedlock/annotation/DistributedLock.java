package io.github.distributedlock.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding a distributed lock in Redis, so that at most one caller at a
 * time, across every instance of the application, runs it for the same lock key.
 * <p>
 * Works on methods of Spring beans called through their proxy, like {@code @Transactional}: a call from
 * inside the same object ({@code this.pay(...)}) is not locked. The lock is taken outside any
 * {@code @Transactional} of the same method, so it is released only after the transaction has committed
 * (see {@code distributed-lock.advisor-order}). It may be used as a meta-annotation.
 * <p>
 * Redis key of the lock: {@code <key-prefix><name>} when {@link #key()} is empty, otherwise
 * {@code <key-prefix><name>:<key value>}. The same identity is used by
 * {@link io.github.distributedlock.core.DistributedLockTemplate}: {@code template.execute("order:42", ...)}
 * and {@code @DistributedLock(name = "order", key = "#id")} called with {@code 42} are one lock.
 * <pre class="code">
 * &#64;DistributedLock(name = "order", key = "#order.id", lease = "30s", acquireTimeout = "5s")
 * public void pay(Order order) { ... }
 * </pre>
 * On a {@code @Scheduled} method, every instance starts the job at the same time; there the attributes left
 * unset default to what a scheduled job needs: {@link #acquireTimeout()} {@code "0"} and {@link #onFailure()}
 * {@link OnLockFailure#SKIP}, so the instances that lose the lock skip the period instead of waiting and running
 * the job again. An explicit setting wins, {@code onFailure = THROW} written out included (an explicit acquire
 * timeout above zero gets a startup WARN). The startup logs one INFO line listing the locked scheduled methods
 * and what their losers do.
 *
 * @see io.github.distributedlock.core.DistributedLockTemplate
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface DistributedLock {

	/**
	 * Lock name, the first part of the lock key. Empty (the default) means
	 * {@code SimpleClassName.methodName} of the target class.
	 * @return the lock name, or empty for the default
	 */
	String name() default "";

	/**
	 * SpEL expressions over the method's arguments whose values complete the lock key, such as
	 * {@code "#order.id"}, {@code "#p0"}, {@code "#root.method.name"} or {@code "@tenant.id()"}.
	 * Empty (the default) means the name alone. Several expressions lock every resulting key (multi-key):
	 * all are acquired in one fixed order, so calls naming the same keys never deadlock, and all are released.
	 * An expression that fails or evaluates to {@code null} or an empty string is an error and the method
	 * does not run.
	 * @return the key expressions
	 */
	String[] key() default {};

	/**
	 * Kind of lock.
	 * @return the lock type, {@link LockType#REENTRANT} by default
	 */
	LockType type() default LockType.REENTRANT;

	/**
	 * Lease: how long the lock lives in Redis without renewal, as a duration such as {@code "30s"},
	 * {@code "500ms"}, {@code "PT1M"} (a bare number means milliseconds), may be a {@code ${placeholder}}.
	 * Must be positive; with {@link #autoRenew()} at least 100 ms. Empty (the default) means
	 * {@code distributed-lock.lease}.
	 * @return the lease, or empty for the configured default
	 */
	String lease() default "";

	/**
	 * How long to wait for the lock, in the same format as {@link #lease()}; {@code "0"} tries once and
	 * does not wait. Empty (the default) means {@code distributed-lock.acquire-timeout}, or {@code "0"} on a
	 * {@code @Scheduled} method.
	 * @return the acquire timeout, or empty for the configured default
	 */
	String acquireTimeout() default "";

	/**
	 * Whether to keep extending the lease while the method runs (the watchdog renews it every lease/3).
	 * With {@code false} the lease is a hard limit: when it runs out the lock is lost, the loss is told then
	 * (event, meter, and the method is interrupted with {@code onLost = INTERRUPT}), and the method's return is
	 * replaced by a {@link io.github.distributedlock.core.LockLostException}.
	 * @return whether the lease is renewed, {@code true} by default
	 */
	boolean autoRenew() default true;

	/**
	 * What to do when the lock is not acquired within the acquire timeout.
	 * @return {@link OnLockFailure#THROW} by default; on a {@code @Scheduled} method, left unset, it is
	 * {@link OnLockFailure#SKIP}
	 */
	OnLockFailure onFailure() default OnLockFailure.THROW;

	/**
	 * Minimum hold: the lock stays taken until at least this long after it was acquired, even when the
	 * method returns sooner; its release then only shortens the lease to what is left of this time and drops
	 * the owner, so nobody (the same thread included) acquires it before then. Meant for {@code @Scheduled}
	 * jobs: {@code fixedRate} and {@code fixedDelay} ones, which each instance fires at its own phase (one
	 * without a minimum hold gets a startup WARN), and {@code cron} ones run by instances whose clocks differ a
	 * little: an instance that starts the job late finds it still taken and skips it. Choose it a little
	 * shorter than the period. Same format as {@link #lease()}; not negative. Empty (the default) means none;
	 * {@code "0"} too, and silences that WARN.
	 * @return the minimum hold, or empty for none
	 */
	String holdAtLeast() default "";

	/**
	 * What happens to the running method when this client learns that its lock was lost (see
	 * {@link OnLockLoss}): {@link OnLockLoss#INTERRUPT} stops it (an interrupt, a failed future, an error signal
	 * that cancels the publisher's upstream). {@link OnLockLoss#NONE}, the default, takes
	 * {@code distributed-lock.on-lost} ({@code none} unless configured): the method runs on and the loss is
	 * reported at its release.
	 * @return {@link OnLockLoss#NONE} by default
	 */
	OnLockLoss onLost() default OnLockLoss.NONE;

	/**
	 * How many callers may run the method at once for one key, across every instance: {@code 1} (the default)
	 * makes the key a lock; more make it a <em>semaphore</em>, such as "at most three exports per tenant":
	 * <pre class="code">
	 * &#64;DistributedLock(name = "export", key = "#tenant", permits = 3)
	 * public void export(String tenant) { ... }
	 * </pre>
	 * Each caller holds one permit with a lease of its own, renewed by the watchdog while the method runs and
	 * freed when it ends if its instance died; a re-entry by the same owner takes no second permit; waiting
	 * callers get permits first come, first served across instances; fencing tokens strictly increase per key
	 * across all permits. Requires {@link #type()} {@link LockType#REENTRANT}. Every use of one key must give
	 * the same count. Less than 1, or more than 1 with another type, fails the startup naming the method.
	 * @return the number of permits, 1 by default
	 */
	int permits() default 1;

}
