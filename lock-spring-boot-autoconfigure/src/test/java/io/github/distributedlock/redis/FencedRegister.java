package io.github.distributedlock.redis;

import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A fenced resource for the tests: a Redis hash holding a value and the fencing token of its last accepted
 * write, which refuses a write whose token is not greater (the resource side of fencing).
 */
final class FencedRegister {

	private static final RedisScript<Long> WRITE = RedisScript.of("""
			local fence = tonumber(redis.call('HGET', KEYS[1], 'fence') or '0')
			if tonumber(ARGV[1]) <= fence then
			    return 0
			end
			redis.call('HSET', KEYS[1], 'fence', ARGV[1], 'value', ARGV[2])
			return 1
			""", Long.class);

	private final StringRedisTemplate redis;

	private final String key;

	FencedRegister(StringRedisTemplate redis, String key) {
		this.redis = redis;
		this.key = key;
	}

	/**
	 * Writes {@code value} if {@code token} is greater than the token of the last accepted write.
	 * @return whether the write was accepted
	 */
	boolean write(long token, String value) {
		return Long.valueOf(1).equals(this.redis.execute(WRITE, List.of(this.key), Long.toString(token), value));
	}

	String value() {
		return (String) this.redis.opsForHash().get(this.key, "value");
	}

	long fence() {
		Object fence = this.redis.opsForHash().get(this.key, "fence");
		return (fence != null) ? Long.parseLong(fence.toString()) : 0;
	}

}
