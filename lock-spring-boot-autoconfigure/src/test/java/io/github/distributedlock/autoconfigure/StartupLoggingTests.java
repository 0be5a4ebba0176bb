package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the library logs at startup: one INFO line with the setup (on Redis, or in this JVM with the local store,
 * also without Spring Data Redis), and a WARN when the Redis command timeout is not below a third of the shortest
 * lease.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupLoggingTests {

	private static final RedisServer server = SharedRedis.server();

	private static final String LOGGER = DistributedLockStartupLogger.class.getName();

	private static final String TIMEOUT_WARNING = "The Redis command timeout is";

	private static final String LOCAL_STORE = "in this JVM only (distributed-lock.store=local: not shared with other "
			+ "instances)";

	private final LoggingSystem loggingSystem = LoggingSystem.get(getClass().getClassLoader());

	@BeforeEach
	void logInfo() {
		this.loggingSystem.setLogLevel(LOGGER, LogLevel.INFO);
	}

	@AfterEach
	void resetLogLevel() {
		this.loggingSystem.setLogLevel(LOGGER, null);
	}

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
	}

	@Test
	void oneInfoLineSaysWhereRedisIsAndTheDefaults(CapturedOutput output) {
		contextRunner().withBean(ShortLeaseService.class)
			.withPropertyValues("distributed-lock.key-prefix=app:", "distributed-lock.acquire-timeout=250ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				String clientId = context.getBean(RedisLockClient.class).getClientId();
				assertThat(output.getOut().lines().filter((line) -> line.contains("Distributed locks on Redis")))
					.singleElement()
					.asString()
					.contains("INFO")
					.contains("Redis " + server.host() + ":" + server.port())
					.contains("key prefix 'app:'")
					.contains("default lease 30s")
					.contains("acquire timeout 250ms")
					.contains("client id " + clientId)
					.contains("@DistributedLock methods checked: 2");
			});
	}

	@Test
	void theLineNamesTheKeyPrefixAlsoWhenMetricsDecorateTheClient(CapturedOutput output) {
		contextRunner().withConfiguration(AutoConfigurations.of(DistributedLockMetricsAutoConfiguration.class))
			.withUserConfiguration(DistributedLockObservabilityAutoConfigurationTests.Registries.class)
			.withPropertyValues("distributed-lock.key-prefix=metered:", "distributed-lock.sync-replicas=1")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(DistributedLockTemplate.class).getClient())
					.isNotInstanceOf(RedisLockClient.class);
				assertThat(output).contains("key prefix 'metered:'").contains("replica sync 1 replica within 100ms");
			});
	}

	@Test
	void withJedisTheLineSaysThereAreNoReactiveLocks(CapturedOutput output) {
		contextRunner().withPropertyValues("spring.data.redis.client-type=jedis")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("no reactive locks (Mono/Flux methods, ReactiveDistributedLockTemplate)")
			.contains("Lettuce has and Jedis has not");
	}

	@Test
	void withLettuceTheLineSaysNothingOfReactiveLocks(CapturedOutput output) {
		contextRunner().run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("Distributed locks on Redis").doesNotContain("no reactive locks");
	}

	@Test
	void warnsWhenTheCommandTimeoutIsUnset(CapturedOutput output) {
		contextRunner().run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains(TIMEOUT_WARNING + " 60s (spring.data.redis.timeout is not set)")
			.contains("shortest lease (30s / 3 = 10s)")
			.contains("Set spring.data.redis.timeout below 10s, such as 2s");
	}

	@Test
	void doesNotWarnWhenTheCommandTimeoutIsBelowAThirdOfTheLease(CapturedOutput output) {
		contextRunner().withPropertyValues("spring.data.redis.timeout=9s")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("Distributed locks on Redis").doesNotContain(TIMEOUT_WARNING);
	}

	@Test
	void warnsWhenAnAnnotatedLeaseIsShorterThanThreeTimesTheTimeout(CapturedOutput output) {
		contextRunner().withBean(ShortLeaseService.class)
			.withPropertyValues("spring.data.redis.timeout=2s")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains(TIMEOUT_WARNING + " 2s (spring.data.redis.timeout = 2s)")
			.contains("shortest lease (3s / 3 = 1s)");
	}

	@Test
	void withTheLocalStoreTheLineSaysTheLocksAreInThisJvm(CapturedOutput output) {
		// Jedis: the local store has reactive locks whatever the Redis client, so the line must not deny them
		contextRunner().withConfiguration(AutoConfigurations.of(LocalLockAutoConfiguration.class))
			.withPropertyValues("distributed-lock.store=local", "distributed-lock.key-prefix=in-jvm:",
					"spring.data.redis.client-type=jedis")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output.getOut().lines().filter((line) -> line.contains("Distributed locks ")))
			.singleElement()
			.asString()
			.contains("Distributed locks " + LOCAL_STORE + ", key prefix 'in-jvm:'")
			.doesNotContain("Redis " + server.host())
			.doesNotContain("no reactive locks");
		assertThat(output).doesNotContain(TIMEOUT_WARNING);
	}

	@Test
	void withTheLocalStoreAndNoSpringDataRedisTheLocalConfigurationLogsTheLine(CapturedOutput output) {
		new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.withConfiguration(
					AutoConfigurations.of(LocalLockAutoConfiguration.class, DistributedLockAutoConfiguration.class))
			.withBean(ShortLeaseService.class)
			.withPropertyValues("distributed-lock.store=local", "distributed-lock.acquire-timeout=250ms")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(DistributedLockAutoConfiguration.class);
				String clientId = context.getBean(LockClient.class).getClientId();
				assertThat(output.getOut().lines().filter((line) -> line.contains("Distributed locks ")))
					.singleElement()
					.asString()
					.contains("INFO")
					.contains("Distributed locks " + LOCAL_STORE + ", key prefix 'lock:'")
					.contains("default lease 30s")
					.contains("acquire timeout 250ms")
					.contains("client id " + clientId)
					.contains("@DistributedLock methods checked: 2");
			});
		assertThat(output).doesNotContain(TIMEOUT_WARNING);
	}

	// public, so that its proxy class, defined in a filtered class loader, may extend it
	public static class ShortLeaseService {

		@DistributedLock(lease = "3s")
		public void run() {
		}

		// a hard lease is not renewed, so the command timeout does not matter for it
		@DistributedLock(lease = "150ms", autoRenew = false)
		public void hard() {
		}

	}

}
