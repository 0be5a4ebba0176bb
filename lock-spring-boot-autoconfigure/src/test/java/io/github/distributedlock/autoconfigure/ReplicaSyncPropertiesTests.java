package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.UUID;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code distributed-lock.sync-replicas} and {@code distributed-lock.sync-timeout}: their defaults, that they
 * reach the lock client (and the startup line), and that a value the library cannot use fails the startup
 * naming the property.
 */
@ExtendWith(OutputCaptureExtension.class)
class ReplicaSyncPropertiesTests {

	private static final RedisServer server = SharedRedis.server();

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"distributed-lock.acquire-timeout=300ms");
	}

	@Test
	void replicaSyncIsOffByDefault(CapturedOutput output) {
		contextRunner().run((context) -> {
			DistributedLockProperties properties = context.getBean(DistributedLockProperties.class);
			assertThat(properties.getSyncReplicas()).isZero();
			assertThat(properties.getSyncTimeout()).isEqualTo(Duration.ofMillis(100));
			// the shared Redis has no replica: with replica sync on, nothing could be acquired
			DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
			assertThat(template.execute("sync:" + UUID.randomUUID(), () -> "ran")).isEqualTo("ran");
			assertThat(output).contains("Distributed locks on Redis").doesNotContain("replica sync");
		});
	}

	@Test
	void theLockClientSyncsWithAsManyReplicasAsConfigured(CapturedOutput output) {
		contextRunner().withPropertyValues("distributed-lock.sync-replicas=1", "distributed-lock.sync-timeout=50ms")
			.run((context) -> {
				assertThat(output).contains("replica sync 1 replica within 50ms");
				assertThat(context.getBean(DistributedLockProperties.class).getSyncTimeout())
					.isEqualTo(Duration.ofMillis(50));
				// no replica acknowledges: every try is undone until the acquire timeout
				DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
				String key = "sync:" + UUID.randomUUID();
				assertThatThrownBy(() -> template.execute(key, () -> "ran")).isInstanceOf(LockAcquisitionException.class);
				assertThat(SharedRedis.redis().hasKey("lock:" + key)).isFalse();
			});
	}

	@Test
	void aNegativeNumberOfReplicasFailsTheStartupNamingTheProperty() {
		contextRunner().withPropertyValues("distributed-lock.sync-replicas=-1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("distributed-lock.sync-replicas");
		});
	}

	@Test
	void aSyncTimeoutUnderOneMillisecondFailsTheStartupNamingTheProperty() {
		for (String timeout : new String[] { "0", "500us" }) {
			contextRunner().withPropertyValues("distributed-lock.sync-timeout=" + timeout).run((context) -> {
				assertThat(context).as(timeout).hasFailed();
				assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("distributed-lock.sync-timeout");
			});
		}
	}

}
