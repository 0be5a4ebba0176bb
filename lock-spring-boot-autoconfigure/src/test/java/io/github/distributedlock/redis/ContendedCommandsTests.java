package io.github.distributedlock.redis;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.distributedlock.test.RedisServer;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the contended steps of a reentrant lock ask of Redis, on a redis-server of its own: a try that finds the
 * lock held and queues, a release that grants the lock to the waiter that waited longest, and a release that hands
 * it to a thread of the owner's own client. Under contention Redis runs these scripts one after another for every
 * hand-over, so each command in them bounds how many hand-overs a second one key can see. The scripts are run
 * as the client sends them (same arguments), and what they leave is checked with the counts: the holder, its
 * single hold, the token in '~f' and in the grant's message, the new holder's lease.
 */
class ContendedCommandsTests {

	private static final String CHANNEL = "lock:__released";

	private static final String ALL_HOLDS = Integer.toString(Integer.MAX_VALUE);

	private static RedisServer server;

	private static RedisCommands<String, String> redis;

	@BeforeAll
	static void start() {
		server = RedisServer.start();
		redis = server.admin();
	}

	@AfterAll
	static void stop() {
		server.close();
	}

	@Test
	void aTryThatQueuesReadsTheHashOnce() {
		String key = heldBy("a:1/1");
		redis.configResetstat();
		List<Long> reply = acquire(key, "b:1/1", "30000", "1000", "7");
		assertThat(reply).as("the holder's remaining lease, token 0").hasSize(2);
		assertThat(reply.get(0)).isBetween(29_000L, 30_000L);
		// EXISTS (the head's free-key check), one HMGET (own field, the other kinds' marks, its own entry), PTTL,
		// TIME (the entry's place and end), HSET (the entry)
		assertThat(calls()).isEqualTo(Map.of("exists", 1L, "hmget", 1L, "pttl", 1L, "time", 1L, "hset", 1L));
		assertThat(redis.hget(key, "q:b:1/1")).matches("\\d{16}:\\d+:30000:7");
	}

	@Test
	void aGrantingReleaseReadsTheClockAndTheHashOnceAndWritesTheHolderWithItsToken() {
		String key = heldBy("a:1/1");
		acquire(key, "b:1/1", "20000", "1000", "7");
		long holderToken = Long.parseLong(redis.hget(key, "~f"));
		redis.configResetstat();
		assertThat(release(key, "a:1/1")).as("freed, granted to the waiter").isZero();
		// the holder's count and the fields (release head), TIME, HGETALL (entries and '~f'), HDEL (old holder and
		// the entry), HSET (new holder and its token), PEXPIRE (its lease), PUBLISH (the grant)
		assertThat(calls()).isEqualTo(Map.of("hget", 1L, "hlen", 1L, "time", 1L, "hgetall", 1L, "hdel", 1L, "hset", 1L,
				"pexpire", 1L, "publish", 1L));
		assertThat(redis.hgetall(key)).containsOnlyKeys("b:1/1", "~f").containsEntry("b:1/1", "1");
		assertThat(Long.parseLong(redis.hget(key, "~f"))).isGreaterThan(holderToken);
		assertThat(redis.pttl(key)).isBetween(19_000L, 20_000L);
	}

	@Test
	void aGrantFollowsTheLastTokenWhenTheClockIsBehindIt() {
		String key = heldBy("a:1/1");
		acquire(key, "b:1/1", "30000", "1000", "7");
		// a token from a clock far ahead (a failover to a replica whose clock is behind the old primary's)
		long ahead = redisMicros() + 3_600_000_000L;
		redis.hset(key, "~f", Long.toString(ahead));
		release(key, "a:1/1");
		assertThat(redis.hget(key, "~f")).isEqualTo(Long.toString(ahead + 1));
	}

	@Test
	void aHandOverToALocalThreadWritesTheHolderWithItsTokenOnce() {
		String key = heldBy("a:1/1");
		long holderToken = Long.parseLong(redis.hget(key, "~f"));
		redis.configResetstat();
		List<Long> reply = redis.eval(ReentrantKind.RELEASE.getScriptAsString(), ScriptOutputType.MULTI,
				new String[] { key }, "a:1/1", CHANNEL, ALL_HOLDS, "a:2/2", "15000");
		assertThat(reply.get(0)).as("handed over").isEqualTo(LockScripts.HANDED_OVER);
		assertThat(reply.get(1)).as("the new holder's token").isGreaterThan(holderToken);
		// the release head's HGET and HLEN, HDEL (old holder), HGET '~f' and TIME (the token), HSET (the new holder
		// and its token), PEXPIRE (its lease)
		assertThat(calls()).as("nothing published")
			.isEqualTo(Map.of("hget", 2L, "hlen", 1L, "hdel", 1L, "time", 1L, "hset", 1L, "pexpire", 1L));
		assertThat(redis.hgetall(key)).containsOnlyKeys("a:2/2", "~f").containsEntry("a:2/2", "1");
		assertThat(redis.hget(key, "~f")).isEqualTo(Long.toString(reply.get(1)));
		assertThat(redis.pttl(key)).isBetween(14_000L, 15_000L);
	}

	@Test
	void aTryThatFindsItsOwnGrantHoldsTheLockOnceWithANewToken() {
		String key = heldBy("a:1/1");
		acquire(key, "b:1/1", "30000", "1000", "7");
		release(key, "a:1/1");
		long granted = Long.parseLong(redis.hget(key, "~f"));
		// the grant's message was lost: the waiter's next try finds its own field
		List<Long> reply = acquire(key, "b:1/1", "25000", "1000", "7");
		assertThat(reply).as("acquired: the token alone").hasSize(1);
		assertThat(reply.get(0)).isGreaterThan(granted);
		assertThat(redis.hget(key, "~f")).isEqualTo(Long.toString(reply.get(0)));
		assertThat(redis.hget(key, "b:1/1")).as("one hold").isEqualTo("1");
		assertThat(redis.pttl(key)).isBetween(24_000L, 25_000L);
	}

	/** A new lock key, held once by owner for 30 s. */
	private static String heldBy(String owner) {
		String key = "lock:contended:" + UUID.randomUUID();
		assertThat(acquire(key, owner, "30000", "1000", "1")).as("acquired").hasSize(1);
		return key;
	}

	private static List<Long> acquire(String key, String owner, String lease, String claim, String waitId) {
		return redis.eval(ReentrantKind.ACQUIRE.getScriptAsString(), ScriptOutputType.MULTI,
				new String[] { key }, owner, lease, "0", claim, waitId);
	}

	private static long release(String key, String owner) {
		return redis.eval(ReentrantKind.RELEASE.getScriptAsString(), ScriptOutputType.INTEGER,
				new String[] { key }, owner, CHANNEL, ALL_HOLDS);
	}

	/** Redis's clock, in microseconds: where fencing tokens start. */
	private static long redisMicros() {
		List<String> time = redis.time();
		return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
	}

	/** Calls per command since the last CONFIG RESETSTAT, without the script calls and this test's own. */
	private static Map<String, Long> calls() {
		Map<String, Long> calls = new LinkedHashMap<>();
		Matcher matcher = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)").matcher(redis.info("commandstats"));
		while (matcher.find()) {
			calls.put(matcher.group(1), Long.parseLong(matcher.group(2)));
		}
		calls.keySet().removeIf((command) -> command.equals("eval") || command.equals("info")
				|| command.startsWith("config"));
		return calls;
	}

}
