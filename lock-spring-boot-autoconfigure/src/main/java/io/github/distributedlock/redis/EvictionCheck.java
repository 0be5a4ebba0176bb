package io.github.distributedlock.redis;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Judges at startup whether a Redis server that holds locks may evict their keys, from its {@code maxmemory} and
 * {@code maxmemory-policy} ({@code CONFIG GET maxmemory*}): the one piece of logic of the Redis store's check (its
 * server, or each node of its cluster: {@link RedisAccessProbe}) and of the Redlock store's check of each node.
 * <p>
 * With a memory limit ({@code maxmemory} above 0) every policy but {@code noeviction} evicts under memory
 * pressure: the {@code volatile-*} policies evict exactly the keys that have a TTL, which every lock key has, and
 * the {@code allkeys-*} policies any key. An evicted lock key is free: a second holder is granted the lock while
 * the first still believes it holds it (the first learns it at its next renewal, up to a third of a lease later, or
 * on Redlock not at all while a quorum of its keys is gone). Only {@code noeviction} (writes then fail with an
 * {@code OOM} error instead) or no limit is safe. Such a server fails the startup with an
 * {@link EvictingRedisException}, unless the application opts out ({@value #ALLOW_PROPERTY}): then one WARN names
 * the risk. A configuration that cannot be read (the ACL user lacks {@code +config|get}; a managed service
 * disables {@code CONFIG}) is one WARN saying what was not checked and why. Immutable and thread-safe.
 */
public final class EvictionCheck {

	/** The property that lets an application start on a Redis server that may evict lock keys. */
	public static final String ALLOW_PROPERTY = "distributed-lock.allow-evicting-redis";

	/** The one policy under which a server with a memory limit evicts nothing. */
	static final String NO_EVICTION = "noeviction";

	private static final Log logger = LogFactory.getLog(EvictionCheck.class);

	private static final String MAXMEMORY = "maxmemory";

	private static final String POLICY = "maxmemory-policy";

	private final boolean allowEvicting;

	/**
	 * Creates the check.
	 * @param allowEvicting whether a server that may evict lock keys is only WARNed about
	 * ({@value #ALLOW_PROPERTY}) instead of failing the startup
	 */
	public EvictionCheck(boolean allowEvicting) {
		this.allowEvicting = allowEvicting;
	}

	/**
	 * Judges the reply of {@code CONFIG GET maxmemory*}: one server's ({@code maxmemory}, {@code maxmemory-policy}),
	 * or a cluster's, whose keys name each node ({@code <host:port>.maxmemory}, as Spring Data Redis merges them).
	 * @param server names the server for the messages, such as {@code localhost:6379} or
	 * {@code Redlock node a:6379}; a cluster's nodes are named by their keys
	 * @param config the reply
	 * @throws EvictingRedisException if a server may evict lock keys and the application did not opt out
	 */
	public void judge(String server, Map<?, ?> config) {
		Map<String, Map<String, String>> servers = new LinkedHashMap<>();
		for (Map.Entry<?, ?> entry : config.entrySet()) {
			String key = String.valueOf(entry.getKey());
			for (String parameter : new String[] { MAXMEMORY, POLICY }) {
				if (key.equals(parameter) || key.endsWith("." + parameter)) {
					String name = key.equals(parameter) ? server
							: key.substring(0, key.length() - parameter.length() - 1);
					servers.computeIfAbsent(name, (n) -> new LinkedHashMap<>())
						.put(parameter, String.valueOf(entry.getValue()));
				}
			}
		}
		for (Map.Entry<String, Map<String, String>> each : servers.entrySet()) {
			judge(each.getKey(), each.getValue().get(MAXMEMORY), each.getValue().get(POLICY));
		}
	}

	/**
	 * Judges one server's values.
	 * @param server names the server for the messages
	 * @param maxmemory its {@code maxmemory} in bytes as {@code CONFIG GET} answers it, {@code null} if not answered
	 * @param policy its {@code maxmemory-policy}, {@code null} if not answered
	 * @throws EvictingRedisException if it may evict lock keys and the application did not opt out
	 */
	public void judge(String server, @Nullable String maxmemory, @Nullable String policy) {
		if (maxmemory == null || policy == null) {
			logger.warn("Redis server " + server + " did not tell its maxmemory and maxmemory-policy (CONFIG GET "
					+ "answered " + MAXMEMORY + "=" + maxmemory + ", " + POLICY + "=" + policy + "): whether it "
					+ "may evict lock keys is not checked; make sure it runs with maxmemory-policy noeviction "
					+ "(see docs/faults.md)");
			return;
		}
		if (!evicts(maxmemory, policy)) {
			return;
		}
		EvictingRedisException evicting = new EvictingRedisException(server, maxmemory, policy);
		if (!this.allowEvicting) {
			throw evicting;
		}
		logger.warn(evicting.getMessage() + "; under memory pressure it drops held locks, and grants them to a "
				+ "second holder while the first still believes it holds them. Started anyway because "
				+ ALLOW_PROPERTY + "=true (see docs/faults.md)");
	}

	/**
	 * Says, once for the server, that its eviction policy could not be read, and why.
	 * @param server names the server for the messages
	 * @param failure what {@code CONFIG GET} failed with
	 */
	public void notReadable(String server, Throwable failure) {
		String words = RedisFailures.describe(failure);
		String why;
		if (RedisFailures.isPermissionDenied(failure)) {
			why = "the Redis user may not read the configuration (add +config|get to its ACL rule, see "
					+ "docs/managed-redis.md)";
		}
		else if (words.contains("unknown command") || words.contains("unknown subcommand")) {
			why = "the server does not offer CONFIG (managed services often disable it: check the service's "
					+ "maxmemory-policy parameter yourself)";
		}
		else {
			why = "CONFIG GET failed";
		}
		logger.warn("Whether Redis server " + server + " may evict lock keys (maxmemory, maxmemory-policy) is not "
				+ "checked: " + why + ": " + words + ". Under memory pressure, any policy but noeviction drops held "
				+ "locks and grants them twice (see docs/faults.md)");
	}

	/**
	 * Tells whether a server with these values evicts keys under memory pressure.
	 * @param maxmemory {@code maxmemory} in bytes, as {@code CONFIG GET} answers it
	 * @param policy {@code maxmemory-policy}
	 * @return {@code true} with a limit and any policy but {@code noeviction}
	 */
	static boolean evicts(String maxmemory, String policy) {
		return hasLimit(maxmemory) && !NO_EVICTION.equalsIgnoreCase(policy.trim());
	}

	private static boolean hasLimit(String maxmemory) {
		try {
			return Long.parseLong(maxmemory.trim()) > 0;
		}
		catch (NumberFormatException ex) {
			// not a plain byte count (a proxy's "4mb"?): a limit unless it says 0
			return !maxmemory.trim().matches("0+[a-zA-Z]*");
		}
	}

}
