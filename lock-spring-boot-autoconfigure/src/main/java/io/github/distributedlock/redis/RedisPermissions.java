package io.github.distributedlock.redis;

import java.util.List;
import java.util.Objects;

/**
 * The Redis ACL permissions the lock client needs, as one rule to give its user: the keys and channels under the
 * key prefix, and only the commands it sends or its scripts call. Tested as exactly this rule over TLS (see
 * {@code docs/managed-redis.md}). No key or channel of anyone else; of the {@code @dangerous} commands only
 * {@code CONFIG GET}, which the startup check of the eviction policy reads ({@link EvictionCheck}) and which
 * writes nothing.
 */
public final class RedisPermissions {

	/**
	 * The commands the client sends ({@code EVALSHA}, {@code EVAL} with its scripts; {@code SUBSCRIBE},
	 * {@code UNSUBSCRIBE} for release notifications; {@code PING} for the health check; {@code WAIT} for replica
	 * sync; {@code CONFIG GET} for the startup check of the eviction policy), then those its scripts call.
	 */
	public static final List<String> COMMANDS = List.of("evalsha", "eval", "subscribe", "unsubscribe", "ping", "wait",
			"config|get", "time", "hget", "hmget", "hgetall", "hexists", "hlen", "hset", "hincrby", "hdel", "pexpire", "pttl",
			"exists", "type", "del", "publish");

	/**
	 * The commands of {@link NotificationMode#SHARDED} notifications: {@link #COMMANDS} with {@code SSUBSCRIBE},
	 * {@code SUNSUBSCRIBE} and {@code SPUBLISH} in place of {@code SUBSCRIBE}, {@code UNSUBSCRIBE} and
	 * {@code PUBLISH}.
	 */
	public static final List<String> SHARDED_COMMANDS = COMMANDS.stream()
		.map((command) -> switch (command) {
			case "subscribe" -> "ssubscribe";
			case "unsubscribe" -> "sunsubscribe";
			case "publish" -> "spublish";
			default -> command;
		})
		.toList();

	/**
	 * What a Redis Cluster client needs beside the lock commands, with Lettuce or Jedis: the topology reads
	 * ({@code CLUSTER SLOTS}, {@code CLUSTER SHARDS}, {@code CLUSTER NODES}, {@code CLUSTER MYID}), {@code READONLY}
	 * for reads from replicas, and {@code ASKING}, which the client sends before following an {@code -ASK} redirect
	 * while a slot migrates (a resharding): without it, every lock command on a migrating slot fails until the
	 * migration ends.
	 */
	public static final List<String> CLUSTER_COMMANDS = List.of("cluster|slots", "cluster|shards", "cluster|nodes",
			"cluster|myid", "readonly", "asking");

	/**
	 * The commands a Redlock node's user needs ({@code distributed-lock.store=redlock}): {@code EVALSHA} and
	 * {@code EVAL} with the Redlock scripts; {@code SUBSCRIBE} and {@code UNSUBSCRIBE} for release notifications;
	 * {@code PING} for the health contributor and to confirm a reopened connection; {@code INFO} and
	 * {@code CONFIG GET} for the startup checks (one server listed twice, replicas, Cluster members; eviction
	 * policy, persistence), then those the scripts call.
	 */
	public static final List<String> REDLOCK_COMMANDS = List.of("evalsha", "eval", "subscribe", "unsubscribe", "ping",
			"info", "config|get", "time", "exists", "hget", "hmget", "hset", "pexpire", "pttl", "get", "set", "del",
			"publish");

	private RedisPermissions() {
	}

	/**
	 * Returns the ACL rule that gives a Redlock node's user what the Redlock store needs and nothing else, for
	 * each node's {@code ACL SETUSER <user> on ><password> <rule>} (the user and password go in the node's URL).
	 * @param keyPrefix the key prefix ({@code distributed-lock.key-prefix}), such as {@code "lock:"}; the release
	 * channel starts with it too
	 * @return such as {@code ~lock:* &lock:* -@all +evalsha +eval +subscribe ...}
	 */
	public static String redlockAclRule(String keyPrefix) {
		return rule(keyPrefix, REDLOCK_COMMANDS);
	}

	/**
	 * Returns the ACL rule of {@link #aclRule(String)} for a notification mode: with {@link NotificationMode#SHARDED},
	 * the sharded pub/sub commands instead of the classic ones.
	 * @param keyPrefix the key prefix, such as {@code "lock:"}
	 * @param mode the notification mode the client resolved ({@link NotificationMode#AUTO} counts as classic)
	 * @return such as {@code ~lock:* &lock:* -@all +evalsha +eval +ssubscribe ...}
	 */
	public static String aclRule(String keyPrefix, NotificationMode mode) {
		Objects.requireNonNull(mode, "mode must not be null");
		return rule(keyPrefix, (mode == NotificationMode.SHARDED) ? SHARDED_COMMANDS : COMMANDS);
	}

	/** The keys and channels under the prefix, no command but these. */
	private static String rule(String keyPrefix, List<String> commands) {
		Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		String pattern = escape(keyPrefix) + "*";
		return "~" + pattern + " &" + pattern + " -@all +" + String.join(" +", commands);
	}

	/**
	 * Returns the ACL rule of {@link #aclRule(String, NotificationMode)} for a user of a Redis Cluster: the same rule
	 * with {@link #CLUSTER_COMMANDS} added.
	 * @param keyPrefix the key prefix, such as {@code "lock:"}
	 * @param mode the notification mode the client resolved ({@link NotificationMode#AUTO} counts as classic)
	 * @return such as {@code ~lock:* &lock:* -@all +evalsha ... +spublish +cluster|slots ... +asking}
	 */
	public static String clusterAclRule(String keyPrefix, NotificationMode mode) {
		return aclRule(keyPrefix, mode) + " +" + String.join(" +", CLUSTER_COMMANDS);
	}

	/**
	 * Returns the ACL rule that gives a user what the lock client needs with classic notifications and nothing else, for
	 * {@code ACL SETUSER <user> on ><password> <rule>} or a {@code user} line of {@code redis.conf} or an ACL file.
	 * @param keyPrefix the key prefix ({@code distributed-lock.key-prefix}), such as {@code "lock:"}; release
	 * channels start with it too
	 * @return such as {@code ~lock:* &lock:* -@all +evalsha +eval ...}
	 */
	public static String aclRule(String keyPrefix) {
		return aclRule(keyPrefix, NotificationMode.CLASSIC);
	}

	/** Escapes the glob characters of a prefix, so that the pattern matches it literally. */
	private static String escape(String keyPrefix) {
		StringBuilder escaped = new StringBuilder(keyPrefix.length());
		for (char c : keyPrefix.toCharArray()) {
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				escaped.append('\\');
			}
			escaped.append(c);
		}
		return escaped.toString();
	}

}
