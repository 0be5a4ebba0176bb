package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.github.distributedlock.annotation.OnLockLoss;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.redis.NotificationMode;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of distributed locks, under {@code distributed-lock}. Durations take the usual Spring Boot
 * forms ({@code 500ms}, {@code 30s}, {@code PT1M}; a bare number is milliseconds). The setters check the
 * values, so a property the library cannot use fails the binding with an {@link InvalidLockPropertyException}.
 * The groups under their own prefixes ({@code commit-guard}, {@code endpoint}, {@code redlock}) are the nested
 * classes, bound with the rest, as Spring Boot's own properties nest theirs.
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

	private final CommitGuard commitGuard = new CommitGuard();

	private final Endpoint endpoint = new Endpoint();

	private final Redlock redlock = new Redlock();

	/**
	 * Whether to start although a Redis server that holds locks (the store's server, or a Redlock node) may evict
	 * their keys: a maxmemory limit with a maxmemory-policy other than noeviction ('volatile-*' policies evict
	 * keys that have a TTL, and every lock key has one; 'allkeys-*' any key). Such a server drops a held lock under
	 * memory pressure and grants it to a second holder, so by default it fails the startup; true starts with a
	 * WARN naming the risk. Use it only when that Redis cannot be changed and double grants under memory pressure
	 * are acceptable.
	 */
	private boolean allowEvictingRedis = false;

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
	 * Returns whether the startup goes on, with a WARN, on a Redis server that may evict lock keys.
	 * @return {@code false} by default: such a server fails the startup
	 */
	public boolean isAllowEvictingRedis() {
		return this.allowEvictingRedis;
	}

	/**
	 * Sets whether the startup goes on, with a WARN, on a Redis server that may evict lock keys.
	 * @param allowEvictingRedis {@code true} to accept that such a server can grant a lock twice under memory
	 * pressure
	 */
	public void setAllowEvictingRedis(boolean allowEvictingRedis) {
		this.allowEvictingRedis = allowEvictingRedis;
	}

	/**
	 * Returns the commit guard's properties, bound at {@code distributed-lock.commit-guard}.
	 * @return the commit guard's properties, never {@code null}
	 */
	public CommitGuard getCommitGuard() {
		return this.commitGuard;
	}

	/**
	 * Returns the {@code distributedlocks} endpoint's properties, bound at {@code distributed-lock.endpoint}.
	 * @return the endpoint's properties, never {@code null}
	 */
	public Endpoint getEndpoint() {
		return this.endpoint;
	}

	/**
	 * Returns the Redlock store's properties, bound at {@code distributed-lock.redlock}.
	 * @return the Redlock store's properties, never {@code null}
	 */
	public Redlock getRedlock() {
		return this.redlock;
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

	/**
	 * Properties of the commit guard ({@code distributed-lock.commit-guard.*}): a Spring transaction that commits
	 * while its thread holds a distributed lock is rolled back if that lock is lost or its confirmed lease ends
	 * within the margin.
	 */
	public static class CommitGuard {

		/**
		 * Whether a transaction that commits under a distributed lock checks that lock first, and rolls back with
		 * LockLostException if it is lost or its confirmed lease ends within the margin.
		 */
		private boolean enabled = true;

		/**
		 * How long a lock's lease must still be confirmed for when a transaction under it commits: the longest a
		 * commit may take, so that it ends while the lock holds. The default, 1s, is far more than a commit takes
		 * on a healthy database and far less than what a healthy lock has left: its renewals keep at least two
		 * thirds of the lease confirmed (20s of the default 30s lease), so only a lock whose renewals have stopped
		 * comes within it. Keep it under half the shortest lease of a lock that commits transactions.
		 */
		private Duration margin = Duration.ofSeconds(1);

		/**
		 * Creates the properties with their defaults; Spring Boot binds them.
		 */
		public CommitGuard() {
		}

		/**
		 * Returns whether the commit guard is on.
		 * @return {@code true} by default
		 */
		public boolean isEnabled() {
			return this.enabled;
		}

		/**
		 * Sets whether the commit guard is on.
		 * @param enabled {@code false} lets transactions commit under a lost lock
		 */
		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		/**
		 * Returns how long a lock's lease must still be confirmed for at a commit.
		 * @return the margin, 1 second by default
		 */
		public Duration getMargin() {
			return this.margin;
		}

		/**
		 * Sets how long a lock's lease must still be confirmed for at a commit; checked when the commit guard is
		 * made (a negative margin fails the startup then, naming the property), not while the guard is off.
		 * @param margin not negative
		 */
		public void setMargin(Duration margin) {
			this.margin = Objects.requireNonNull(margin, "margin must not be null");
		}

	}

	/**
	 * Properties of the {@code distributedlocks} Actuator endpoint ({@code distributed-lock.endpoint.*}).
	 */
	public static class Endpoint {

		/**
		 * Whether DELETE on the distributedlocks endpoint may force-release a lock, whoever holds it; when off, it
		 * is refused with 403 and the lock is untouched.
		 */
		private boolean forceReleaseEnabled = false;

		/**
		 * Creates the properties with their defaults; Spring Boot binds them.
		 */
		public Endpoint() {
		}

		/**
		 * Returns whether the endpoint may force-release locks.
		 * @return {@code false} by default
		 */
		public boolean isForceReleaseEnabled() {
			return this.forceReleaseEnabled;
		}

		/**
		 * Sets whether the endpoint may force-release locks.
		 * @param forceReleaseEnabled {@code true} to allow it
		 */
		public void setForceReleaseEnabled(boolean forceReleaseEnabled) {
			this.forceReleaseEnabled = forceReleaseEnabled;
		}

	}

	/**
	 * Properties of the Redlock store ({@code distributed-lock.redlock.*}), read with
	 * {@code distributed-lock.store=redlock}. See {@code docs/redlock.md}. Bound once by Spring Boot; not for sharing
	 * between threads while bound.
	 */
	public static class Redlock {

		/**
		 * The independent Redis primaries a lock is held on (at least 3, an odd number recommended; the quorum is
		 * N/2 + 1 of them): redis:// or rediss:// URLs, with user and password in the URL
		 * (redis://user:password@host:6379).
		 */
		private List<String> nodes = new ArrayList<>();

		/**
		 * How long one node's answer to one command is waited for, well below the lease: a node slower than this
		 * counts as not voting. A bare number means milliseconds.
		 */
		private Duration nodeTimeout = Duration.ofMillis(100);

		/**
		 * The clock drift allowed for, as a fraction of the lease: a hold's validity is lease - elapsed - (drift-factor
		 * * lease + 2 ms).
		 */
		private double driftFactor = 0.01;

		/**
		 * The longest random delay between two acquisition rounds of a waiting acquisition: after a split vote; one
		 * refused by a holder is woken by the holder's release notification, and votes again after half to all of
		 * this delay when none comes. A bare number means milliseconds.
		 */
		private Duration retryDelay = Duration.ofMillis(200);

		/**
		 * The shortest validity an acquisition accepts: one that won its quorum with less validity left (a slow
		 * round) is released and tried again. A bare number means milliseconds.
		 */
		private Duration minValidity = Duration.ofMillis(50);

		/**
		 * Name of the SSL bundle (spring.ssl.bundle.*) whose trust material, and key material for a client
		 * certificate, every rediss:// node is connected with; its protocols and ciphers apply too. Without it,
		 * rediss:// nodes are trusted by the JVM's default trust store; redis:// nodes ignore it.
		 */
		private @Nullable String sslBundle;

		/**
		 * Creates the properties with their defaults; Spring Boot binds them.
		 */
		public Redlock() {
		}

		/**
		 * Returns the URLs of the Redis primaries.
		 * @return the node URLs, empty by default
		 */
		public List<String> getNodes() {
			return this.nodes;
		}

		/**
		 * Sets the URLs of the Redis primaries.
		 * @param nodes the node URLs
		 */
		public void setNodes(List<String> nodes) {
			this.nodes = nodes;
		}

		/**
		 * Returns how long one node's answer is waited for.
		 * @return the per-node timeout, 100 ms by default
		 */
		public Duration getNodeTimeout() {
			return this.nodeTimeout;
		}

		/**
		 * Sets how long one node's answer is waited for.
		 * @param nodeTimeout the per-node timeout
		 */
		public void setNodeTimeout(Duration nodeTimeout) {
			this.nodeTimeout = nodeTimeout;
		}

		/**
		 * Returns the clock drift allowed for, as a fraction of the lease.
		 * @return the drift factor, 0.01 by default
		 */
		public double getDriftFactor() {
			return this.driftFactor;
		}

		/**
		 * Sets the clock drift allowed for, as a fraction of the lease.
		 * @param driftFactor the drift factor, at least 0 and below 0.5
		 */
		public void setDriftFactor(double driftFactor) {
			this.driftFactor = driftFactor;
		}

		/**
		 * Returns the longest random delay between two acquisition rounds.
		 * @return the longest retry delay, 200 ms by default
		 */
		public Duration getRetryDelay() {
			return this.retryDelay;
		}

		/**
		 * Sets the longest random delay between two acquisition rounds.
		 * @param retryDelay the longest retry delay
		 */
		public void setRetryDelay(Duration retryDelay) {
			this.retryDelay = retryDelay;
		}

		/**
		 * Returns the least validity an acquisition may keep.
		 * @return the minimum validity, 50 ms by default
		 */
		public Duration getMinValidity() {
			return this.minValidity;
		}

		/**
		 * Sets the least validity an acquisition may keep.
		 * @param minValidity the minimum validity
		 */
		public void setMinValidity(Duration minValidity) {
			this.minValidity = minValidity;
		}

		/**
		 * Returns the name of the SSL bundle the {@code rediss://} nodes are connected with.
		 * @return the bundle's name, {@code null} by default (the JVM's default trust store)
		 */
		public @Nullable String getSslBundle() {
			return this.sslBundle;
		}

		/**
		 * Sets the name of the SSL bundle the {@code rediss://} nodes are connected with.
		 * @param sslBundle the name of a bundle under {@code spring.ssl.bundle.*}, or {@code null} for none
		 */
		public void setSslBundle(@Nullable String sslBundle) {
			this.sslBundle = sslBundle;
		}

	}

}
