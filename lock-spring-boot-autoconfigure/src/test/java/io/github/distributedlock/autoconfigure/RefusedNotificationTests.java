package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.redis.RedisPermissions;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.TlsRedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A release whose notification Redis refuses (the user's channel permission was taken away while the application
 * ran) still releases: the holder's call returns normally, and a waiter of another instance gets the lock by its
 * timed retry, long before the holder's 30 s lease would have ended.
 */
class RefusedNotificationTests {

	private static final String RULE = RedisPermissions.aclRule("lock:");

	private static TlsRedisServer server;

	@BeforeAll
	static void startServer() {
		server = TlsRedisServer.start(RULE);
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@AfterEach
	void restoreRule() {
		server.setUserRule(RULE);
	}

	@ParameterizedTest(name = "{0}, {1}")
	@CsvSource({ "lettuce, REENTRANT", "lettuce, WRITE", "jedis, REENTRANT", "jedis, WRITE" })
	void theReleaseHappensAndTheWaiterGetsTheLockByItsRetry(String client, LockType type) {
		LockApplications.runTwo(server.runner(client, false), (first, second) -> {
			assertThat(first).hasNotFailed();
			// both subscriptions are made (off the starting thread) before the channels go: the case is channels
			// taken away while running. (A Jedis subscription that Redis refuses can leave its reply on a pooled
			// connection; a client's first subscription is not checked first, see ClassicSubscription.)
			await().atMost(Duration.ofSeconds(10)).until(() -> first.getBean(RedisLockClient.class).isListening()
					&& second.getBean(RedisLockClient.class).isListening());
			// the startup check passed; now the channels are taken away: every PUBLISH is refused
			server.setUserRule(RULE.replace("&lock:*", "resetchannels"));
			LockDefinition definition = LockDefinition.builder("refused:" + UUID.randomUUID())
				.type(type)
				.lease(Duration.ofSeconds(30))
				.acquireTimeout(Duration.ofSeconds(20))
				.build();
			CountDownLatch held = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			ExecutorService threads = Executors.newFixedThreadPool(2);
			try {
				Future<String> holder = threads.submit(() -> LockApplications.template(first).execute(definition, () -> {
					held.countDown();
					release.await(20, TimeUnit.SECONDS);
					return "done";
				}));
				assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
				Future<Long> waiter = threads
					.submit(() -> LockApplications.template(second).execute(definition, System::nanoTime));
				String redisKey = "lock:" + definition.key();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> server.admin().hkeys(redisKey).stream()
						.anyMatch((field) -> field.startsWith("q:") || field.startsWith("ww:")));
				long released = System.nanoTime();
				release.countDown();
				// the releasing caller gets no exception for work that completed
				assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("done");
				// nothing woke the waiter: its timed retry (within a second) found the lock free or granted
				long gotAfter = waiter.get(15, TimeUnit.SECONDS) - released;
				assertThat(Duration.ofNanos(gotAfter)).isLessThan(Duration.ofSeconds(5));
			}
			finally {
				threads.shutdownNow();
			}
		});
	}

}
