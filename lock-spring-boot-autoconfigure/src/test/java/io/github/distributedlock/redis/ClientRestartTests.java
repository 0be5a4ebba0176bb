package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.UUID;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.distributedlock.test.LockApplications.client;
import static io.github.distributedlock.test.LockApplications.template;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * An application context stopped and started again (a restart, a CRaC checkpoint and restore) leaves a lock
 * client that works (issue 18, item 7): its locks are acquired, renewed, waited for and released as before,
 * under a new client id, and what was held before the stop stays lost.
 */
class ClientRestartTests {

	private static final RedisServer server = SharedRedis.server();

	private final ApplicationContextRunner application = LockApplications.runner(
			"spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
			"distributed-lock.lease=900ms", "distributed-lock.shutdown-timeout=0");

	private final StringRedisTemplate redis = SharedRedis.redis();

	@Test
	void aRestartedContextLocksAgainUnderANewClientId() {
		this.application.run((instance) -> {
			RedisLockClient client = client(instance);
			DistributedLockTemplate locks = template(instance);
			String key = "restart:" + UUID.randomUUID();
			String before = client.getClientId();
			LockHandle heldAtStop = locks.acquire(LockDefinition.builder(key + ":held").build());
			instance.stop();
			assertThat(client.isRunning()).isFalse();
			assertThat(this.redis.hasKey("lock:" + key + ":held")).as("released at the stop").isFalse();
			instance.start();
			assertThat(client.isRunning()).isTrue();
			assertThat(client.getClientId()).isNotEqualTo(before);
			assertThat(heldAtStop.isLost()).isTrue();
			assertThatThrownBy(heldAtStop::close).isInstanceOf(LockLostException.class);
			// acquired, renewed past several leases, and released
			try (LockHandle handle = locks.acquire(LockDefinition.builder(key).build())) {
				server.awaitRenewal("lock:" + key, Duration.ofSeconds(5));
				await().pollDelay(Duration.ofMillis(2000)).atMost(Duration.ofSeconds(5)).until(() -> true);
				assertThat(handle.isLost()).as("renewed past two leases").isFalse();
				assertThat(client.isListening()).isTrue();
			}
			assertThat(this.redis.hasKey("lock:" + key)).isFalse();
			assertThat(client.heldLocks()).isEmpty();
		});
	}

}
