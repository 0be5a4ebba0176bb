package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.Lock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.RedisClientLibrary;
import io.github.distributedlock.test.RedisServer;
import io.lettuce.core.ScriptOutputType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an uncontended lock+unlock pair asks of Redis, on a redis-server of its own (nothing else runs commands
 * there): two script calls, and in them the fewest commands a free key needs, each answered with one integer. Most
 * lock calls in production are this pair, so a command more here is paid everywhere (lock-benchmarks measures what
 * it costs).
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
		// may still be making in the background (its connection's handshake, HELLO and CLIENT, then SUBSCRIBE)
		calls.keySet().removeIf((command) -> command.equals("info") || command.startsWith("config")
				|| command.endsWith("subscribe") || command.equals("ping") || command.startsWith("client")
				|| command.equals("hello"));
		// acquire: EXISTS, TIME, HSET (holder and token), PEXPIRE; release: HGET (the hold count), HLEN, DEL
		assertThat(calls).as("commands inside the scripts")
			.containsOnlyKeys("exists", "time", "hset", "pexpire", "hget", "hlen", "del")
			.allSatisfy((command, count) -> assertThat(count).as(command).isEqualTo(1));
	}

	@Test
	void anAcquisitionIsAnsweredWithItsTokenAloneAsOneInteger() {
		// an array reply costs Redis and the client more than an integer, on every uncontended acquisition
		String key = "lock:reply:" + UUID.randomUUID();
		long before = redisMicros();
		// Lettuce's list output takes an integer reply as a list of one, and an array as it is
		List<Long> reply = server.admin()
			.eval(ReentrantKind.ACQUIRE.getScriptAsString(), ScriptOutputType.MULTI, new String[] { key },
					"client:1/1", "30000", "0", "1000", "7");
		assertThat(reply).as("one integer").hasSize(1);
		assertThat(reply.get(0)).as("the fencing token").isBetween(before, redisMicros());
		assertThat(server.admin().hget(key, "~f")).isEqualTo(Long.toString(reply.get(0)));
		// a blocked try, as every other answer, is a pair: the holder's remaining lease and token 0
		assertThat(server.admin()
			.<List<Long>>eval(ReentrantKind.ACQUIRE.getScriptAsString(), ScriptOutputType.MULTI,
					new String[] { key }, "client:2/1", "30000", "0", "0", "0"))
			.hasSize(2)
			.satisfies((pair) -> assertThat(pair.get(0)).isPositive(), (pair) -> assertThat(pair.get(1)).isZero());
	}

	/**
	 * Each way of sending scripts reads the integer an acquisition is answered with: Lettuce's shared connection
	 * (a list of one), Lettuce without it and Jedis (a {@code Long}, through Spring Data Redis's connection).
	 */
	@ParameterizedTest
	@ValueSource(strings = { "lettuce-shared", "lettuce-unshared", "jedis" })
	void everyTransportReadsTheAcquisitionsToken(String transport) {
		RedisConnectionFactory connections = switch (transport) {
			case "lettuce-shared" -> RedisClientLibrary.lettuce(server.host(), server.port());
			case "lettuce-unshared" -> {
				LettuceConnectionFactory unshared = RedisClientLibrary.lettuce(server.host(), server.port());
				unshared.setShareNativeConnection(false);
				yield unshared;
			}
			default -> RedisClientLibrary.JEDIS.connectTo(server.host(), server.port());
		};
		try (RedisLockClient lockClient = new RedisLockClient(connections, "lock:")) {
			String key = "transport:" + UUID.randomUUID();
			long before = redisMicros();
			try (LockHandle handle = lockClient.acquire(LockRequest.builder(key)
				.lease(Duration.ofSeconds(30))
				.timeout(Duration.ofSeconds(5))
				.build())) {
				assertThat(handle).isNotNull();
				assertThat(handle.fencingToken()).isBetween(before, redisMicros());
				assertThat(server.admin().hget("lock:" + key, "~f")).isEqualTo(Long.toString(handle.fencingToken()));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		finally {
			RedisClientLibrary.destroy(connections);
		}
	}

	/** Redis's clock, in microseconds: where fencing tokens start. */
	private static long redisMicros() {
		List<String> time = server.admin().time();
		return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
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
