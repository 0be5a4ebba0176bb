package io.github.distributedlock.redis;

import java.util.Locale;

import io.github.distributedlock.core.DistributedLockException;

/**
 * Thrown at startup when a Redis server that would hold locks may evict their keys: it has a memory limit
 * ({@code maxmemory}) and an eviction policy other than {@code noeviction} (see {@link EvictionCheck}). Names the
 * server, its limit and its policy; the failure report adds the fix.
 */
public class EvictingRedisException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	/** The server, such as {@code localhost:6379} or {@code Redlock node a:6379}. */
	private final String server;

	/** Its {@code maxmemory}, as {@code CONFIG GET} answered it (bytes). */
	private final String maxmemory;

	/** Its {@code maxmemory-policy}. */
	private final String policy;

	/**
	 * Creates the exception.
	 * @param server names the server, such as {@code localhost:6379} or {@code Redlock node a:6379}
	 * @param maxmemory its {@code maxmemory} in bytes, as {@code CONFIG GET} answered it
	 * @param policy its {@code maxmemory-policy}, such as {@code volatile-lru}
	 */
	public EvictingRedisException(String server, String maxmemory, String policy) {
		super("Redis server " + server + " may evict lock keys: maxmemory " + maxmemory + " bytes with "
				+ "maxmemory-policy " + policy + ", " + whatItEvicts(policy));
		this.server = server;
		this.maxmemory = maxmemory;
		this.policy = policy;
	}

	/**
	 * Says which keys a policy evicts when the server reaches its memory limit.
	 * @param policy a {@code maxmemory-policy}
	 * @return such as {@code "which evicts keys that have a TTL, and every lock key has one"}
	 */
	static String whatItEvicts(String policy) {
		String lower = policy.toLowerCase(Locale.ROOT);
		if (lower.startsWith("volatile-")) {
			return "which evicts keys that have a TTL when memory runs short, and every lock key has one";
		}
		if (lower.startsWith("allkeys-")) {
			return "which evicts any key when memory runs short, lock keys included";
		}
		return "which is not noeviction, so it may evict lock keys when memory runs short";
	}

	/**
	 * Returns the server.
	 * @return such as {@code localhost:6379}
	 */
	public String getServer() {
		return this.server;
	}

	/**
	 * Returns the server's memory limit.
	 * @return {@code maxmemory} in bytes, as {@code CONFIG GET} answered it
	 */
	public String getMaxmemory() {
		return this.maxmemory;
	}

	/**
	 * Returns the server's eviction policy.
	 * @return {@code maxmemory-policy}, such as {@code volatile-lru}
	 */
	public String getPolicy() {
		return this.policy;
	}

}
