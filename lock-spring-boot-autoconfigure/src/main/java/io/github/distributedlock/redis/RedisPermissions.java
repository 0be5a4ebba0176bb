package io.github.distributedlock.redis;

import java.util.List;
import java.util.Objects;

/**
 * The Redis ACL permissions the lock client needs, as one rule to give its user: the keys and channels under the
 * key prefix, and only the commands it sends or its scripts call. Tested as exactly this rule over TLS (see
 * {@code docs/managed-redis.md}). Nothing {@code @dangerous}; no key or channel of anyone else.
 */
public final class RedisPermissions {

	/**
	 * The commands the client sends ({@code EVALSHA}, {@code EVAL} with its scripts; {@code SUBSCRIBE},
	 * {@code UNSUBSCRIBE} for release notifications; {@code PING} for the health check; {@code WAIT} for replica
	 * sync), then those its scripts call.
	 */
	public static final List<String> COMMANDS = List.of("evalsha", "eval", "subscribe", "unsubscribe", "ping", "wait",
			"time", "hget", "hmget", "hgetall", "hexists", "hlen", "hset", "hincrby", "hdel", "pexpire", "pttl",
			"exists", "type", "del", "publish");

	private RedisPermissions() {
	}

	/**
	 * Returns the ACL rule that gives a user what the lock client needs and nothing else, for
	 * {@code ACL SETUSER <user> on ><password> <rule>} or a {@code user} line of {@code redis.conf} or an ACL file.
	 * @param keyPrefix the key prefix ({@code distributed-lock.key-prefix}), such as {@code "lock:"}; release
	 * channels start with it too
	 * @return such as {@code ~lock:* &lock:* -@all +evalsha +eval ...}
	 */
	public static String aclRule(String keyPrefix) {
		Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		String pattern = escape(keyPrefix) + "*";
		return "~" + pattern + " &" + pattern + " -@all +" + String.join(" +", COMMANDS);
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
