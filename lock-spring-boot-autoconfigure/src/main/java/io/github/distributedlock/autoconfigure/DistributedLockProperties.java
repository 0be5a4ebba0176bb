package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.annotation.OnLockLoss;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.redis.NotificationMode;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of distributed locks, under {@code distributed-lock}. Durations take the usual Spring Boot
 * forms ({@code 500ms}, {@code 30s}, {@code PT1M}; a bare number is milliseconds). The setters check the
 * values, so a property the library cannot use fails the binding with an {@link InvalidLockPropertyException}.
 */
@ConfigurationProperties("distributed-lock")
public class DistributedLockProperties {

	/**
	 * Default order of the {@code @DistributedLock} advisor, {@code Ordered.LOWEST_PRECEDENCE - 100}: just
	 * outside {@code @Transactional} and {@code @Cacheable} at their default order
	 * ({@code Ordered.LOWEST_PRECEDENCE}), so that a lock is released after the commit.
	 */
	public static final int DEFAULT_ADVISOR_ORDER = 2147483547;

	/**
	 * Whether to enable distributed locks (the template, the lock client and @DistributedLock).
	 */
	private boolean enabled = true;

	/**
	 * Prefix of the Redis key of every lock; release notifications use the channels
	 * '<key-prefix>__released' and '<key-prefix>__released:<client id>' (sharded: '<key-prefix>__released{<tag>}'
	 * and '<key-prefix>__released{<tag>}:<client id>'), so that an ACL user needs only the key pattern
	 * '~<key-prefix>*' and the channel pattern '&<key-prefix>*'.
	 */
	private String keyPrefix = "lock:";

	/**
	 * Lease of locks that set none: how long a lock lives in Redis without renewal, so a crashed holder frees
	 * it after at most this long. At least 100ms. A bare number means milliseconds ("300" is 300ms).
	 */
	private Duration lease = Duration.ofSeconds(30);

	/**
	 * How long to wait for a lock that sets no acquire timeout; 0 tries once. A bare number means milliseconds.
	 */
	private Duration acquireTimeout = Duration.ofSeconds(5);

	/**
	 * How many replicas must have a lock before its holder runs: after every acquisition (grants and hand-overs
	 * included) the library waits with WAIT until they acknowledge it, and undoes and retries an acquisition they
	 * do not acknowledge within sync-timeout (within the acquire timeout). Narrows the window in which a failover
	 * loses a lock. 0 turns it off (no cost). Needs Lettuce.
	 */
	private int syncReplicas = 0;

	/**
	 * How long an acquisition waits for sync-replicas replicas to acknowledge it; at least 1ms. A bare number means milliseconds.
	 */
	private Duration syncTimeout = Duration.ofMillis(100);

	/**
	 * How long the application's shutdown waits for threads that still hold locks to release them; the locks
	 * are renewed meanwhile, and what is left afterwards is released with a warning. Spent in the lock client's
	 * own lifecycle phase, after the web server's graceful shutdown and before the Redis connection factory
	 * stops, and not cut short by spring.lifecycle.timeout-per-shutdown-phase. Executors with
	 * spring.task.*.shutdown.await-termination=true finish their tasks only after every lifecycle phase: give
	 * this at least their await-termination-period. A bare number means milliseconds.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(30);

	/**
	 * Order of the @DistributedLock advisor among other advisors (lower runs first, further outside). Keep it
	 * lower than the transaction advisor's so that locks are released after the commit.
	 */
	private int advisorOrder = DEFAULT_ADVISOR_ORDER;

	/**
	 * Where the locks live: 'redis', 'local' for an in-JVM store (for tests and single-instance
	 * development: it excludes nothing across JVMs, and needs no Redis), or 'redlock' for a quorum of independent
	 * Redis primaries (distributed-lock.redlock.nodes).
	 */
	private Store store = Store.REDIS;

	/**
	 * What happens to the running work of a lock that sets no onLost when this instance learns that the lock was
	 * lost: 'none' lets it run on (the release reports the loss), 'interrupt' stops it (interrupts a blocking
	 * holder's thread, fails a CompletableFuture, signals an error to a Mono or Flux and cancels its upstream).
	 */
	private OnLockLoss onLost = OnLockLoss.NONE;

	/**
	 * How release notifications travel: 'auto' picks 'sharded' on a Redis Cluster of Redis 7.0+ or Valkey reached
	 * through Lettuce, 'classic' elsewhere (standalone, Sentinel, Redis 6.2, Jedis); 'classic' is PUBLISH/SUBSCRIBE
	 * on '<key-prefix>__released' (broadcast to every cluster node); 'sharded' is SPUBLISH/SSUBSCRIBE on channels
	 * in the lock key's hash slot ('<key-prefix>__released{<tag>}', needs Lettuce and a cluster, and an ACL user
	 * with +spublish +ssubscribe +sunsubscribe instead of +publish +subscribe +unsubscribe). Every instance of one
	 * Redis must use the same mode.
	 */
	private NotificationMode notifications = NotificationMode.AUTO;

	/**
	 * Creates properties with the documented defaults; Spring Boot binds {@code distributed-lock.*} onto them.
	 */
	public DistributedLockProperties() {
	}

	/**
	 * Returns whether distributed locks are enabled.
	 * @return {@code true} by default
	 */
	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Sets whether distributed locks are enabled.
	 * @param enabled {@code false} turns off the template, the client and {@code @DistributedLock}
	 */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * Returns the prefix of every lock's Redis key.
	 * @return the prefix, {@code "lock:"} by default
	 */
	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Sets the prefix of every lock's Redis key.
	 * @param keyPrefix the prefix; may be empty
	 */
	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	/**
	 * Returns the lease of locks that set none.
	 * @return the lease, 30 seconds by default
	 */
	public Duration getLease() {
		return this.lease;
	}

	/**
	 * Sets the lease of locks that set none.
	 * @param lease the lease; at least {@link LockDefinition#MIN_RENEWABLE_LEASE} (100 ms), as it is renewed
	 * @throws InvalidLockPropertyException if the lease is shorter; the message names the property
	 */
	public void setLease(Duration lease) {
		this.lease = LockPropertyChecks.lease(lease);
	}

	/**
	 * Returns how long to wait for locks that set no acquire timeout.
	 * @return the acquire timeout, 5 seconds by default
	 */
	public Duration getAcquireTimeout() {
		return this.acquireTimeout;
	}

	/**
	 * Sets how long to wait for locks that set no acquire timeout.
	 * @param acquireTimeout the timeout; zero tries once; not negative
	 * @throws InvalidLockPropertyException if the timeout is negative
	 */
	public void setAcquireTimeout(Duration acquireTimeout) {
		this.acquireTimeout = LockPropertyChecks.acquireTimeout(acquireTimeout);
	}

	/**
	 * Returns how many replicas must acknowledge each acquisition (replica sync).
	 * @return the number of replicas; 0 (off) by default
	 */
	public int getSyncReplicas() {
		return this.syncReplicas;
	}

	/**
	 * Sets how many replicas must acknowledge each acquisition (replica sync).
	 * @param syncReplicas the number of replicas; 0 turns replica sync off
	 * @throws InvalidLockPropertyException if negative; the message names the property
	 */
	public void setSyncReplicas(int syncReplicas) {
		this.syncReplicas = LockPropertyChecks.syncReplicas(syncReplicas);
	}

	/**
	 * Returns how long an acquisition waits for its replicas to acknowledge it.
	 * @return the sync timeout, 100 ms by default
	 */
	public Duration getSyncTimeout() {
		return this.syncTimeout;
	}

	/**
	 * Sets how long an acquisition waits for its replicas to acknowledge it.
	 * @param syncTimeout the sync timeout, at least 1 ms (a Redis WAIT of 0 ms would wait for ever)
	 * @throws InvalidLockPropertyException if shorter; the message names the property
	 */
	public void setSyncTimeout(Duration syncTimeout) {
		this.syncTimeout = LockPropertyChecks.syncTimeout(syncTimeout);
	}

	/**
	 * Returns how long the shutdown waits for lock holders to release their locks, and for acquisitions under way.
	 * @return the grace period, 30 seconds by default
	 */
	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	/**
	 * Sets how long the shutdown waits for lock holders to release their locks, and for acquisitions under way.
	 * @param shutdownTimeout the grace period; zero releases at once; not negative
	 * @throws InvalidLockPropertyException if the grace period is negative; the message names the property
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = LockPropertyChecks.shutdownTimeout(shutdownTimeout);
	}

	/**
	 * Returns the order of the {@code @DistributedLock} advisor.
	 * @return the order, {@link #DEFAULT_ADVISOR_ORDER} by default
	 */
	public int getAdvisorOrder() {
		return this.advisorOrder;
	}

	/**
	 * Sets the order of the {@code @DistributedLock} advisor.
	 * @param advisorOrder lower runs first (further outside)
	 */
	public void setAdvisorOrder(int advisorOrder) {
		this.advisorOrder = advisorOrder;
	}

	/**
	 * Returns where the locks live.
	 * @return the store, {@link Store#REDIS} by default
	 */
	public Store getStore() {
		return this.store;
	}

	/**
	 * Sets where the locks live.
	 * @param store {@link Store#LOCAL} for an in-JVM store, {@link Store#REDLOCK} for Redlock
	 */
	public void setStore(Store store) {
		this.store = store;
	}

	/**
	 * Returns what happens to the work of locks that set no {@code onLost} when they are lost.
	 * @return {@link OnLockLoss#NONE} by default
	 */
	public OnLockLoss getOnLost() {
		return this.onLost;
	}

	/**
	 * Sets what happens to the work of locks that set no {@code onLost} when they are lost.
	 * @param onLost {@link OnLockLoss#INTERRUPT} to stop the work
	 */
	public void setOnLost(OnLockLoss onLost) {
		this.onLost = Objects.requireNonNull(onLost, "onLost must not be null");
	}

	/**
	 * Returns how release notifications travel.
	 * @return {@link NotificationMode#AUTO} by default
	 */
	public NotificationMode getNotifications() {
		return this.notifications;
	}

	/**
	 * Sets how release notifications travel.
	 * @param notifications {@link NotificationMode#CLASSIC} or {@link NotificationMode#SHARDED} to force either
	 */
	public void setNotifications(NotificationMode notifications) {
		this.notifications = Objects.requireNonNull(notifications, "notifications must not be null");
	}

	/**
	 * Where the locks live ({@code distributed-lock.store}).
	 */
	public enum Store {

		/**
		 * In Redis, through the application's {@code RedisConnectionFactory}: locks across every instance.
		 */
		REDIS,

		/**
		 * In this JVM ({@code io.github.distributedlock.local.LocalLockClient}): the same semantics inside one
		 * JVM, for tests of code that uses locks and for single-instance development; excludes nothing across
		 * JVMs.
		 */
		LOCAL,

		/**
		 * Redlock over several independent Redis primaries ({@code distributed-lock.redlock.nodes}, with Lettuce
		 * on the classpath): reentrant locks only; see {@code docs/redlock.md}.
		 */
		REDLOCK

	}

}
