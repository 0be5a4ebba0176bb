package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * The channels one client's notifications travel on, in its {@link NotificationMode}. Classic: one release
 * channel, {@code <key prefix>__released}, for every lock. Sharded: one release channel per Redis Cluster hash
 * slot, {@code <key prefix>__released{<tag>}}, where {@code <tag>} is the shortest base-36 number whose hash tag
 * puts the channel in that slot (so a script may {@code SPUBLISH} on it: Redis refuses a script's access outside
 * the slot of its keys), and locks of one slot share it. Grant channels are a release channel followed by
 * {@code :<client id>}, in the same slot. Both shapes start with the key prefix, so one ACL channel pattern
 * ({@code &<key prefix>*}) covers them. Thread-safe (immutable).
 */
final class NotificationChannels {

	/** Logged under the category its lines have always had (this class's name before it was renamed). */
	private static final Log logger = LogFactory.getLog("io.github.distributedlock.redis.ReleaseChannels");

	/** The hash slots of a Redis Cluster. */
	static final int SLOTS = 16384;

	/** The first Redis version with sharded pub/sub, as {@code redis.REDIS_VERSION_NUM} tells it: 7.0.0. */
	private static final long SHARDED_SINCE = 0x070000;

	/** The most candidate tags tried for the channels' table: plenty for any prefix without its own braces. */
	private static final int MAX_CANDIDATES = 1 << 20;

	private final String classic;

	private final NotificationMode mode;

	/** The tag of each slot's channel in sharded mode (-1: none), computed once; empty in classic mode. */
	private final int[] tags;

	/**
	 * Creates the channels of a key prefix in a resolved mode.
	 * @param keyPrefix the key prefix
	 * @param mode {@link NotificationMode#CLASSIC} or {@link NotificationMode#SHARDED}
	 */
	NotificationChannels(String keyPrefix, NotificationMode mode) {
		if (mode == NotificationMode.AUTO) {
			throw new IllegalArgumentException("The notification mode must be resolved first");
		}
		this.classic = RedisLockClient.channel(keyPrefix);
		this.mode = mode;
		// here, not on first use: that may be on a Redis client's I/O thread
		this.tags = (mode == NotificationMode.SHARDED) ? tagTable() : new int[0];
	}

	/**
	 * Returns the mode.
	 * @return {@link NotificationMode#CLASSIC} or {@link NotificationMode#SHARDED}
	 */
	NotificationMode mode() {
		return this.mode;
	}

	/**
	 * Tells whether notifications are sharded.
	 * @return {@code true} in {@link NotificationMode#SHARDED}
	 */
	boolean isSharded() {
		return this.mode == NotificationMode.SHARDED;
	}

	/**
	 * Returns the classic release channel, {@code <key prefix>__released}.
	 * @return the channel
	 */
	String classic() {
		return this.classic;
	}

	/**
	 * Returns the release channel a script that changes a lock gets: the classic one, or the sharded one of the
	 * lock key's slot.
	 * @param redisKey the lock's Redis key
	 * @return the channel
	 * @throws IllegalStateException if the key prefix has braces that leave no sharded channel in the key's slot
	 */
	String of(String redisKey) {
		return isSharded() ? ofSlot(ClusterSlots.of(redisKey), redisKey) : this.classic;
	}

	/**
	 * Returns the sharded release channel of a slot.
	 * @param slot the hash slot, 0 to 16383
	 * @return the channel
	 */
	String ofSlot(int slot) {
		return ofSlot(slot, "slot " + slot);
	}

	private String ofSlot(int slot, String what) {
		if (!isSharded()) {
			throw new IllegalStateException("Classic notifications have no channel per slot");
		}
		int tag = this.tags[slot];
		if (tag < 0) {
			throw new IllegalStateException("The key prefix of '" + this.classic + "' has braces that leave no sharded "
					+ "notification channel in the hash slot of " + what + "; use a key prefix without '{' and '}', "
					+ "or one with a hash tag of its own such as '{locks}:', or distributed-lock.notifications=classic");
		}
		return channel(tag);
	}

	private String channel(int tag) {
		return this.classic + "{" + Integer.toString(tag, 36) + "}";
	}

	/**
	 * Finds a tag for every slot at once: about 170,000 short hashes (the slots are hit at random, like coupons),
	 * a few milliseconds. A prefix with a hash tag of its own puts every channel, like every key, in one slot.
	 */
	private int[] tagTable() {
		int[] table = new int[SLOTS];
		java.util.Arrays.fill(table, -1);
		int filled = 0;
		for (int candidate = 0; candidate < MAX_CANDIDATES && filled < SLOTS; candidate++) {
			int slot = ClusterSlots.of(channel(candidate));
			if (table[slot] < 0) {
				table[slot] = candidate;
				filled++;
			}
			if (candidate == 1000 && filled == 1) {
				break;
			}
		}
		return table;
	}

	/**
	 * Resolves a notification mode (see {@link NotificationMode#resolve}).
	 * @param mode the configured mode
	 * @param connectionFactory the connections
	 * @param keyPrefix the key prefix
	 * @return {@link NotificationMode#CLASSIC} or {@link NotificationMode#SHARDED}
	 * @throws IllegalArgumentException if {@code mode} is sharded and the factory is not Lettuce's for a cluster
	 */
	static NotificationMode resolve(NotificationMode mode, RedisConnectionFactory connectionFactory, String keyPrefix) {
		if (mode == NotificationMode.CLASSIC) {
			return mode;
		}
		boolean lettuceCluster = ScriptTransport.isLettuceCluster(connectionFactory);
		if (mode == NotificationMode.SHARDED) {
			if (!lettuceCluster) {
				throw new IllegalArgumentException("Sharded notifications (distributed-lock.notifications=sharded) need "
						+ "a Redis Cluster reached through Lettuce (a LettuceConnectionFactory with a cluster "
						+ "configuration), but the connection factory is a " + connectionFactory.getClass().getName()
						+ (ScriptTransport.isLettuce(connectionFactory) ? " for a standalone or Sentinel Redis" : "")
						+ "; use distributed-lock.notifications=classic or auto");
			}
			return mode;
		}
		if (!lettuceCluster) {
			return NotificationMode.CLASSIC;
		}
		// a connection of its own, which waits for the connect: the client's first one to a cluster may take seconds
		try (RedisConnection connection = connectionFactory.getConnection()) {
			Long version = connection.scriptingCommands().eval(
					LockScripts.SERVER_VERSION.getScriptAsString().getBytes(StandardCharsets.UTF_8), ReturnType.INTEGER, 1,
					(keyPrefix + "__probe").getBytes(StandardCharsets.UTF_8));
			return (version != null && version >= SHARDED_SINCE) ? NotificationMode.SHARDED : NotificationMode.CLASSIC;
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot read the Redis Cluster's version to choose the lock notification mode ("
					+ RedisFailures.describe(ex) + "); using classic pub/sub. Clients of one cluster must use one "
					+ "mode: set distributed-lock.notifications=sharded (Redis 7.0+, Valkey) or classic");
			return NotificationMode.CLASSIC;
		}
	}


}
