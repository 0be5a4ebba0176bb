package io.github.distributedlock.fencing;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Fenced writes to Redis: sets a string, or a field of a hash, only when the writer's fencing token is not
 * older than the last one accepted for that key, in one script ({@code fenced_write.lua}), and throws
 * {@link StaleFencingTokenException} otherwise. The value stays readable with plain {@code GET} / {@code HGET}.
 * <pre class="code">
 * fencedRedis.set("report:latest", json, LockContext.current().fencingToken());
 * </pre>
 * <h2>Where the token is kept</h2>
 * Beside the value, in a string key of its own: {@code {<key>}:fencing-token} (or {@code <key>:fencing-token}
 * when the key has a hash tag already, and {@code {<n>}:fencing-token:<key>} when its braces make no hash tag,
 * such as {@code a{}b}), in the same Redis Cluster hash slot as the value, so that one script
 * checks and writes both. It takes the value's expiry at each write, so it goes when the value goes; delete it
 * with the value ({@link #fencingTokenKey(String)} names it). A token equal to the last accepted one is the same
 * acquisition writing again, or a retry, and is accepted; so a write may safely be sent twice, and one that
 * arrives late, after a newer holder's, is refused. Thread-safe.
 */
public class FencedRedis {

	/** {@link #tagOf(int)} by slot, as the keys that need one come. */
	private static final Map<Integer, String> SLOT_TAGS = new ConcurrentHashMap<>();

	private static final RedisScript<Long> WRITE = RedisScript
		.of(new ClassPathResource("io/github/distributedlock/redis/fenced_write.lua"), Long.class);

	private final StringRedisTemplate redis;

	/**
	 * Creates a writer on the application's Redis connections.
	 * @param connectionFactory the Redis connections
	 */
	public FencedRedis(RedisConnectionFactory connectionFactory) {
		this.redis = new StringRedisTemplate(Objects.requireNonNull(connectionFactory, "connectionFactory must not be null"));
	}

	/**
	 * Sets a string, as {@code SET key value} (which clears its expiry), if {@code token} is not older than the
	 * last token accepted for {@code key}.
	 * @param key the Redis key of the value
	 * @param value the value
	 * @param token the writer's fencing token, such as {@code LockContext.current().fencingToken()}; positive
	 * @throws StaleFencingTokenException if a greater token was accepted for {@code key} before; nothing changed
	 * @throws IllegalArgumentException if the token is not positive
	 */
	public void set(String key, String value, long token) {
		write(key, token, "set", Objects.requireNonNull(value, "value must not be null"), "");
	}

	/**
	 * Sets a field of a hash, as {@code HSET key field value}, if {@code token} is not older than the last token
	 * accepted for {@code key} (one token per hash, whichever field was written).
	 * @param key the Redis key of the hash
	 * @param field the field
	 * @param value the value
	 * @param token the writer's fencing token; positive
	 * @throws StaleFencingTokenException if a greater token was accepted for {@code key} before; nothing changed
	 * @throws IllegalArgumentException if the token is not positive
	 */
	public void hset(String key, String field, String value, long token) {
		write(key, token, "hset", Objects.requireNonNull(value, "value must not be null"),
				Objects.requireNonNull(field, "field must not be null"));
	}

	/**
	 * Names the key that keeps the last accepted token of a key, in the same hash slot.
	 * @param key the Redis key of the value
	 * @return {@code <key>:fencing-token} if {@code key} has a hash tag; {@code {<key>}:fencing-token} if it has
	 * none and no {@code '}'} (so that its whole self is the new key's tag, as Redis hashes it); otherwise (braces
	 * that make no hash tag, such as {@code a{}b} or {@code a}b}) {@code {<n>}:fencing-token:<key>}, {@code <n>} the
	 * smallest number whose slot is the key's
	 */
	public static String fencingTokenKey(String key) {
		int open = key.indexOf('{');
		int close = (open >= 0) ? key.indexOf('}', open + 1) : -1;
		if (close > open + 1) {
			return key + ":fencing-token";
		}
		if (key.indexOf('}') < 0) {
			return "{" + key + "}:fencing-token";
		}
		// the whole key is hashed, and no tag can quote it: a tag of the same slot instead
		return "{" + SLOT_TAGS.computeIfAbsent(slot(key), FencedRedis::tagOf) + "}:fencing-token:" + key;
	}

	private static int slot(String key) {
		return ClusterSlotHashUtil.calculateSlot(key.getBytes(StandardCharsets.UTF_8));
	}

	/** The smallest number whose decimal digits hash to {@code slot}; a few thousand tries on average. */
	private static String tagOf(int slot) {
		for (long n = 0;; n++) {
			String tag = Long.toString(n);
			if (slot(tag) == slot) {
				return tag;
			}
		}
	}

	private void write(String key, long token, String command, String value, String field) {
		Objects.requireNonNull(key, "key must not be null");
		if (token <= 0) {
			throw new IllegalArgumentException("A fencing token is positive, was " + token + " for key '" + key + "'");
		}
		Long written = this.redis.execute(WRITE, List.of(key, fencingTokenKey(key)), Long.toString(token), command,
				value, field);
		if (!Long.valueOf(1).equals(written)) {
			throw new StaleFencingTokenException(token, "the " + command.toUpperCase() + " of Redis key '" + key + "'");
		}
	}

}
