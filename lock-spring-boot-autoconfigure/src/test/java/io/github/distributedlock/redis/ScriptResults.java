package io.github.distributedlock.redis;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the lock scripts that return a pair (a result and a fencing token) from tests, and reads lock hashes
 * without their token field.
 */
final class ScriptResults {

	private ScriptResults() {
	}

	/**
	 * Runs a script that returns {@code {result, token}} on one key.
	 * @return the result, the first of the pair
	 */
	@SuppressWarnings({ "rawtypes", "unchecked" })
	static long first(StringRedisTemplate redis, RedisScript<Long> script, String redisKey, String... args) {
		RedisScript<List> asList = RedisScript.of(script.getScriptAsString(), List.class);
		List<Long> pair = redis.execute(asList, List.of(redisKey), (Object[]) args);
		return pair.get(0);
	}

	/**
	 * Returns a lock hash's fields but its fencing token ({@code ~f}).
	 */
	static Map<Object, Object> withoutToken(Map<Object, Object> hash) {
		Map<Object, Object> fields = new LinkedHashMap<>(hash);
		fields.remove("~f");
		return fields;
	}

}
