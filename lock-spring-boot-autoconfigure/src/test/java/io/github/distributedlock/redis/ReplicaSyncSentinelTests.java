package io.github.distributedlock.redis;

import io.github.distributedlock.test.Owners;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.test.ReplicatedRedis;
import io.github.distributedlock.test.SentinelProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Replica sync through Redis Sentinel: the application knows only the sentinel, and the WAIT still reaches
 * the primary it names.
 */
class ReplicaSyncSentinelTests {

	private static ReplicatedRedis servers;

	private static SentinelProcess sentinel;

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void start() throws IOException {
		servers = ReplicatedRedis.start();
		sentinel = SentinelProcess.start(servers.primary());
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration().master(SentinelProcess.MASTER)
			.sentinel("127.0.0.1", sentinel.port());
		connectionFactory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
	}

	@AfterAll
	static void stop() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
		if (sentinel != null) {
			sentinel.close();
		}
		if (servers != null) {
			servers.close();
		}
	}

	@Test
	void anAcquisitionIsSyncedWithTheReplicaOfThePrimaryTheSentinelNames() {
		try (RedisLockClient client = new RedisLockClient(connectionFactory, "lock:", 1, Duration.ofMillis(100))) {
			// patient while the replica is up (the first sync connects through the sentinel), brief while frozen
			DistributedLockTemplate patient = new DistributedLockTemplate(client, Duration.ofSeconds(30),
					Duration.ofSeconds(10));
			DistributedLockTemplate brief = new DistributedLockTemplate(client, Duration.ofSeconds(30),
					Duration.ofMillis(500));
			String key = "sync:" + UUID.randomUUID();
			assertThat(patient.execute(key, () -> servers.replicaRedis().opsForHash().get("lock:" + key,
					Owners.current(client))))
				.isEqualTo("1");
			servers.freeze();
			try {
				assertThatThrownBy(() -> brief.execute(key, () -> "unsynced")).isInstanceOf(LockAcquisitionException.class);
			}
			finally {
				servers.thaw();
			}
			assertThat(patient.execute(key, () -> "synced")).isEqualTo("synced");
		}
	}

}
