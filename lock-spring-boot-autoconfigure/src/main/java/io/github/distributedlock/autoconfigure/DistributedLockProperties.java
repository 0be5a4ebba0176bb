package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of distributed locks, under {@code distributed-lock}. Durations take the usual Spring Boot
 * forms ({@code 500ms}, {@code 30s}, {@code PT1M}; a bare number is milliseconds).
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
	 * Prefix of the Redis key of every lock; release notifications use the channel
	 * '<key-prefix>__released'.
	 */
	private String keyPrefix = "lock:";

	/**
	 * Lease of locks that set none: how long a lock lives in Redis without renewal, so a crashed holder frees
	 * it after at most this long. At least 100ms.
	 */
	private Duration lease = Duration.ofSeconds(30);

	/**
	 * How long to wait for a lock that sets no acquire timeout; 0 tries once.
	 */
	private Duration acquireTimeout = Duration.ofSeconds(5);

	/**
	 * Order of the @DistributedLock advisor among other advisors (lower runs first, further outside). Keep it
	 * lower than the transaction advisor's so that locks are released after the commit.
	 */
	private int advisorOrder = DEFAULT_ADVISOR_ORDER;

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
	 * @param lease the lease; at least 100 ms, checked when the template is created
	 */
	public void setLease(Duration lease) {
		this.lease = lease;
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
	 */
	public void setAcquireTimeout(Duration acquireTimeout) {
		this.acquireTimeout = acquireTimeout;
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

}
