package io.github.distributedlock.redis;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A waiter whose JVM is killed ({@code kill -9}): a waiting writer's claim, which makes new readers wait behind
 * it, ends within seconds, not with its lease (issue 14, item 2); a waiter on a key without TTL leaves nothing in
 * it.
 */
class DeadWaiterTests {

	@Test
	void aKilledWaitingWritersClaimKeepsNewReadersOutForSecondsNotForItsLease() throws Exception {
		String key = "dead-writer:" + UUID.randomUUID();
		String redisKey = "lock:" + key;
		RedisLockClient first = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		RedisLockClient second = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		Process writer = null;
		try {
			assertThat((first.acquire(LockRequest.builder(key).type(LockType.READ).lease(Duration.ofSeconds(30))
					.interruptible(false).releasedByThread().build()) != null)).isTrue();
			// a writer in another JVM, with a 30 s lease, waits for the readers
			writer = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
					LockHolderMain.class.getName(), Integer.toString(SharedRedis.server().port()), key, "30000", "WRITE",
					"60000")
				.redirectErrorStream(true)
				.start();
			BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8));
			String waiting = out.readLine();
			assertThat(waiting).startsWith("WAITING ");
			String claim = "ww:" + waiting.substring("WAITING ".length());
			// the claim names the writer's acquisition attempt: "ww:<client id>:<thread id>/<attempt>"
			await().atMost(Duration.ofSeconds(20)).until(() -> SharedRedis.redis().<String, String>opsForHash()
				.keys(redisKey).stream().anyMatch((field) -> field.startsWith(claim)));
			writer.destroyForcibly();
			assertThat(writer.waitFor(10, TimeUnit.SECONDS)).isTrue();
			// a new reader waits behind the dead writer's claim, but only until that claim runs out
			long start = System.nanoTime();
			boolean acquired = (second.acquire(LockRequest.builder(key).type(LockType.READ)
					.lease(Duration.ofSeconds(30)).timeout(Duration.ofSeconds(10)).interruptible(false)
					.releasedByThread().build()) != null);
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			System.out.println("A reader waited " + waited.toMillis() + " ms behind a killed waiting writer (lease 30 s)");
			assertThat(acquired).isTrue();
			assertThat(waited).isLessThan(Duration.ofSeconds(6));
			assertThat(SharedRedis.redis().opsForHash().hasKey(redisKey, claim)).isFalse();
			second.release(key, LockType.READ);
			first.release(key, LockType.READ);
			assertThat(SharedRedis.redis().hasKey(redisKey)).isFalse();
		}
		finally {
			if (writer != null) {
				writer.destroyForcibly();
			}
			first.close();
			second.close();
		}
	}

	/**
	 * A key without TTL (not written by this library, or made persistent) never expires: a waiter must write
	 * nothing into it, or the entry of a waiter that died would stay there for ever (issue 18, a bullet "found by
	 * reading": confirmed, and fixed in {@code reentrant_acquire.lua}).
	 */
	@Test
	void aKilledWaiterLeavesNothingInAKeyWithoutTtl() throws Exception {
		String key = "persistent:" + UUID.randomUUID();
		String redisKey = "lock:" + key;
		SharedRedis.redis().opsForHash().put(redisKey, "someone", "1");
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		Process waiter = null;
		try {
			waiter = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
					LockHolderMain.class.getName(), Integer.toString(SharedRedis.server().port()), key, "30000",
					"REENTRANT", "60000")
				.redirectErrorStream(true)
				.start();
			BufferedReader out = new BufferedReader(new InputStreamReader(waiter.getInputStream(), StandardCharsets.UTF_8));
			assertThat(out.readLine()).startsWith("WAITING ");
			// it tries every 100 ms meanwhile
			await().during(Duration.ofMillis(1500))
				.atMost(Duration.ofSeconds(5))
				.until(() -> SharedRedis.redis().opsForHash().keys(redisKey), (fields) -> fields.equals(Set.of("someone")));
			waiter.destroyForcibly();
			assertThat(waiter.waitFor(10, TimeUnit.SECONDS)).isTrue();
			assertThat(SharedRedis.redis().opsForHash().keys(redisKey)).containsExactly("someone");
			assertThat(SharedRedis.redis().getExpire(redisKey)).as("still without TTL").isEqualTo(-1);
		}
		finally {
			if (waiter != null) {
				waiter.destroyForcibly();
			}
			SharedRedis.redis().delete(redisKey);
		}
	}

}
