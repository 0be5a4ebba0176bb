package io.github.distributedlock.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.TlsRedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;


import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The locks on a managed-style Redis: a TLS-only server whose certificate a test CA signed, trusted through a
 * Spring Boot SSL bundle (PEM or JKS), as an ACL user with exactly the rule of {@link RedisPermissions} (the one
 * {@code docs/managed-redis.md} gives), with Lettuce and Jedis. Two instances contend; a waiter is woken by the
 * release notification (not by the 30 s lease), for reentrant and write locks; Redis refuses nothing.
 */
class ManagedRedisTlsTests {

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

	@ParameterizedTest(name = "{0}, {1} bundle")
	@CsvSource({ "lettuce, PEM", "lettuce, JKS", "jedis, PEM", "jedis, JKS" })
	void twoInstancesLockAsTheLeastPrivilegedUserOverTls(String client, String bundle) {
		server.admin().aclLogReset();
		LockApplications.runTwo(server.runner(client, "JKS".equals(bundle)), (first, second) -> {
			assertThat(first).hasNotFailed();
			assertThat(second).hasNotFailed();
			await().atMost(Duration.ofSeconds(10)).until(() -> LockApplications.client(first).isListening()
					&& LockApplications.client(second).isListening());
			for (LockType type : new LockType[] { LockType.REENTRANT, LockType.WRITE }) {
				LockDefinition definition = LockDefinition.builder("tls:" + UUID.randomUUID())
					.type(type)
					.lease(Duration.ofSeconds(30))
					.acquireTimeout(Duration.ofSeconds(20))
					.build();
				CountDownLatch held = new CountDownLatch(1);
				CountDownLatch release = new CountDownLatch(1);
				ExecutorService threads = Executors.newFixedThreadPool(2);
				try {
					Future<Boolean> holder = threads.submit(() -> LockApplications.template(first).execute(definition, () -> {
						held.countDown();
						return release.await(20, TimeUnit.SECONDS);
					}));
					assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
					Future<Long> waiter = threads
						.submit(() -> LockApplications.template(second).execute(definition, System::nanoTime));
					// the waiter has claimed its place in Redis before the holder lets go
					String redisKey = "lock:" + definition.key();
					await().atMost(Duration.ofSeconds(10))
						.until(() -> server.admin().hkeys(redisKey).stream()
							.anyMatch((field) -> field.startsWith("q:") || field.startsWith("ww:")));
					long released = System.nanoTime();
					release.countDown();
					assertThat(holder.get(10, TimeUnit.SECONDS)).isTrue();
					long wokenAfter = waiter.get(10, TimeUnit.SECONDS) - released;
					// the timed retry of a reentrant waiter comes within a second: only a notification is faster
					assertThat(Duration.ofNanos(wokenAfter)).as(type + " waiter woken after the release")
						.isLessThan(Duration.ofMillis(800));
				}
				finally {
					threads.shutdownNow();
				}
			}
		});
		assertThat(server.admin().aclLog()).as("what Redis refused (ACL LOG)").isEmpty();
	}

	@Test
	void theDocsGiveExactlyTheTestedRule() throws IOException {
		Path docs = Path.of("..", "docs", "managed-redis.md");
		assertThat(Files.readString(docs)).contains(RULE);
	}

}
