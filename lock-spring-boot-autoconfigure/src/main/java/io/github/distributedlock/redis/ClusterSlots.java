package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * The Redis Cluster hash slot of a lock's Redis key, computed from the bytes this client sends for it: its
 * UTF-8 encoding (see {@link ScriptExecutor}), whatever the JVM's default charset. A slot computed from the
 * default charset ({@code ClusterSlotHashUtil.calculateSlot(String)}) differs for keys outside ASCII under a
 * POSIX locale ({@code file.encoding=ANSI_X3.4-1968}, common in containers on Java 17), where every such
 * character becomes {@code ?}: keys of different slots then land in one renewal script, which Redis refuses
 * with CROSSSLOT. Thread-safe (stateless).
 */
final class ClusterSlots {

	private ClusterSlots() {
	}

	/**
	 * Returns the hash slot of a key, as {@code CLUSTER KEYSLOT} does (a {@code {...}} hash tag included).
	 * @param redisKey the key; may be empty
	 * @return the slot, 0 to 16383
	 */
	static int of(String redisKey) {
		return ClusterSlotHashUtil.calculateSlot(redisKey.getBytes(StandardCharsets.UTF_8));
	}

}
