package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.Lock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an uncontended lock+unlock pair asks of Redis, on a redis-server of its own (nothing else runs commands
 * there): two script calls, and in them the fewest commands a free key needs. Most lock calls in production are
 * this pair, so a command more here is paid everywhere (lock-benchmarks measures what it costs).
 */
class UncontendedCommandsTests {

	private static RedisServer server;

	private static LettuceConnectionFactory factory;

	private static RedisLockClient client;

	@BeforeAll
	static void start() {
		server = RedisServer.start();
		factory = server.connectionFactory();
		client = new RedisLockClient(factory, "lock:");
	}

	@AfterAll
	static void stop() {
		client.close();
		factory.destroy();
		server.close();
	}

	@Test
	void anUncontendedPairIsTwoScriptCallsOfSevenCommands() {
		Lock lock = new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ofSeconds(30))
			.getLock("uncontended:" + UUID.randomUUID());
		// the first pair loads the scripts and subscribes; the second is what every later pair costs
		lock.lock();
		lock.unlock();
		server.admin().configResetstat();
		lock.lock();
		lock.unlock();
		Map<String, Long> calls = calls(server.admin().info("commandstats"));
		assertThat(calls.remove("evalsha")).as("script calls").isEqualTo(2);
		// not inside the scripts: this test's own INFO and CONFIG, and the release subscription, which the client
		// may still be making in the background (SUBSCRIBE)
		calls.keySet().removeIf((command) -> command.equals("info") || command.startsWith("config")
				|| command.endsWith("subscribe") || command.equals("ping") || command.startsWith("client"));
		// acquire: EXISTS, TIME, HSET (holder and token), PEXPIRE; release: HGET (the hold count), HLEN, DEL
		assertThat(calls).as("commands inside the scripts")
			.containsOnlyKeys("exists", "time", "hset", "pexpire", "hget", "hlen", "del")
			.allSatisfy((command, count) -> assertThat(count).as(command).isEqualTo(1));
	}

	/** Command name to calls, from {@code INFO commandstats}. */
	private static Map<String, Long> calls(String commandStats) {
		Map<String, Long> calls = new LinkedHashMap<>();
		Matcher matcher = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)").matcher(commandStats);
		while (matcher.find()) {
			calls.put(matcher.group(1), Long.parseLong(matcher.group(2)));
		}
		return calls;
	}

}
