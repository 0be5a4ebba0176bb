package io.github.distributedlock.test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Counts the commands a Redis server has run, from {@code INFO commandstats}: how tests check how many round
 * trips an operation costs.
 */
public final class CommandStats {

	private CommandStats() {
	}

	/**
	 * Returns how many calls the server has run so far of the commands whose names match {@code commands}.
	 * @param redis a template on the server
	 * @param commands a regular expression over lower-case command names, such as {@code "eval(?:sha)?"}
	 * @return the sum of their calls
	 */
	public static long calls(StringRedisTemplate redis, String commands) {
		String stats = redis.execute((RedisCallback<String>) (connection) -> String
			.valueOf(connection.serverCommands().info("commandstats")));
		long calls = 0;
		Matcher matcher = Pattern.compile("cmdstat_" + commands + "[:=]calls=(\\d+)").matcher(stats);
		while (matcher.find()) {
			calls += Long.parseLong(matcher.group(1));
		}
		return calls;
	}

	/**
	 * Sets the server's command counts back to zero ({@code CONFIG RESETSTAT}).
	 * @param redis a template on the server
	 */
	public static void reset(StringRedisTemplate redis) {
		redis.execute((RedisCallback<Void>) (connection) -> {
			connection.serverCommands().resetConfigStats();
			return null;
		});
	}

}
