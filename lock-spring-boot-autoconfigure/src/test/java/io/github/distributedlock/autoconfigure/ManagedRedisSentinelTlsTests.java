package io.github.distributedlock.autoconfigure;

import java.io.IOException;
import java.time.Duration;
import java.util.UUID;

import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.redis.RedisPermissions;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.SentinelProcess;
import io.github.distributedlock.test.TlsRedisServer;
import io.github.distributedlock.test.TlsSentinel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sentinel over TLS, as {@code docs/managed-redis.md} says to set it up: a TLS-only Sentinel monitoring a TLS-only
 * primary, one Spring Boot SSL bundle for both, the least-privileged ACL user on the data node, with Lettuce and
 * Jedis. Two instances find the primary through the Sentinel, subscribe for release notifications, and exclude
 * each other; Redis refuses nothing.
 */
class ManagedRedisSentinelTlsTests {

	private static final String RULE = RedisPermissions.aclRule("lock:");

	private static TlsRedisServer primary;

	private static SentinelProcess sentinel;

	@BeforeAll
	static void start() throws IOException {
		primary = TlsRedisServer.start(RULE);
		sentinel = TlsSentinel.start(primary);
	}

	@AfterAll
	static void stop() {
		if (sentinel != null) {
			sentinel.close();
		}
		if (primary != null) {
			primary.close();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void twoInstancesLockThroughATlsSentinel(String client) {
		primary.admin().aclLogReset();
		LockApplications.runTwo(LockApplications
			.runner("spring.data.redis.sentinel.master=" + SentinelProcess.MASTER,
					"spring.data.redis.sentinel.nodes=" + primary.host() + ":" + sentinel.port(),
					"spring.data.redis.username=" + TlsRedisServer.USER,
					"spring.data.redis.password=" + TlsRedisServer.PASSWORD, "spring.data.redis.timeout=2s",
					"spring.data.redis.ssl.bundle=redis",
					"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + primary.certificates().caCertificate(),
					"spring.data.redis.client-type=" + client)
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class)), (first, second) -> {
				assertThat(first).hasNotFailed();
				assertThat(second).hasNotFailed();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> LockApplications.client(first).isListening()
							&& LockApplications.client(second).isListening());
				LockDefinition tryOnce = LockDefinition.builder("sentinel-tls:" + UUID.randomUUID())
					.acquireTimeout(Duration.ZERO)
					.build();
				try (LockHandle held = LockApplications.template(first).acquire(tryOnce)) {
					assertThat(held.fencingToken()).isPositive();
					assertThat(LockApplications.template(second).tryAcquire(tryOnce)).isEmpty();
				}
				LockApplications.template(second).acquire(tryOnce).close();
			});
		assertThat(primary.admin().aclLog()).as("what Redis refused (ACL LOG)").isEmpty();
	}

}
