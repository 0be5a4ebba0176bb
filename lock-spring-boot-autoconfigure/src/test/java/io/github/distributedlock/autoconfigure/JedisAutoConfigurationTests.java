package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.redis.NotificationMode;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The auto-configuration on an application that chose Jedis ({@code spring.data.redis.client-type=jedis}):
 * the lock client runs on Spring Boot's Jedis connection factory and its pool; replica sync, which needs Lettuce,
 * fails the startup with a report naming the property and the fix.
 */
@ExtendWith(OutputCaptureExtension.class)
class JedisAutoConfigurationTests {

	private static final RedisServer server = SharedRedis.server();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.client-type=jedis", "spring.data.redis.host=" + server.host(),
				"spring.data.redis.port=" + server.port());

	@Test
	void locksThroughTheTemplateAndAWaitingWriterOfAnotherInstanceIsWokenByTheReleaseNotByTheLease() {
		this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
			assertThat(first.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
			StringRedisTemplate redis = new StringRedisTemplate(first.getBean(RedisConnectionFactory.class));
			String key = "jedis:" + UUID.randomUUID();
			// a waiting writer's only way in before the 30 s lease ends is the notification published at the release
			LockDefinition definition = LockDefinition.builder(key)
				.type(LockType.WRITE)
				.lease(Duration.ofSeconds(30))
				.acquireTimeout(Duration.ofSeconds(15))
				.build();
			CountDownLatch held = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			// threads of its own: both block, and the common pool may have a single worker (2 CPUs, Java 25)
			ExecutorService threads = Executors.newFixedThreadPool(2);
			try {
				Future<Boolean> holder = threads
					.submit(() -> first.getBean(DistributedLockTemplate.class).execute(definition, () -> {
						held.countDown();
						return release.await(20, TimeUnit.SECONDS);
					}));
				assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
				Future<Long> waiter = threads
					.submit(() -> second.getBean(DistributedLockTemplate.class).execute(definition, System::nanoTime));
				// the other instance's writer has claimed the lock (it waits) before the holder lets go
				await().atMost(Duration.ofSeconds(10))
					.until(() -> redis.<String, String>opsForHash()
						.keys("lock:" + key)
						.stream()
						.anyMatch((field) -> field.startsWith("ww:")));
				long released = System.nanoTime();
				release.countDown();
				assertThat(holder.get(10, TimeUnit.SECONDS)).isTrue();
				long acquired = waiter.get(15, TimeUnit.SECONDS);
				assertThat(Duration.ofNanos(acquired - released)).isLessThan(Duration.ofSeconds(3));
				assertThat(redis.hasKey("lock:" + key)).isFalse();
			}
			finally {
				threads.shutdownNow();
			}
		}));
	}

	@Test
	void theWatchdogRenewsALeaseShorterThanTheHold() {
		this.contextRunner.run((context) -> {
			DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
			StringRedisTemplate redis = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
			String key = "jedis:" + UUID.randomUUID();
			LockDefinition definition = LockDefinition.builder(key).lease(Duration.ofMillis(600)).build();
			// held for three leases: without renewal the key expires and the release throws LockLostException
			String result = template.execute(definition, () -> {
				await().pollDelay(Duration.ofMillis(1800))
					.atMost(Duration.ofSeconds(5))
					.until(() -> redis.hasKey("lock:" + key));
				return "held";
			});
			assertThat(result).isEqualTo("held");
		});
	}

	@Test
	void replicaSyncFailsTheStartupWithAReportNamingThePropertyAndTheFix() {
		this.contextRunner.withPropertyValues("distributed-lock.sync-replicas=1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(InvalidLockPropertyException.class);
			FailureAnalysis analysis = new LockPropertyFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: distributed-lock.sync-replicas")
				.contains("Value: \"1\"")
				.contains("needs the Lettuce client")
				.contains(JedisConnectionFactory.class.getName());
			assertThat(analysis.getAction()).contains("Use Lettuce")
				.contains("spring.data.redis.client-type=jedis")
				.contains("set distributed-lock.sync-replicas to 0");
		});
	}

	@Test
	void shardedNotificationsFailTheStartupWithAReportNamingThePropertyAndJedisKeepsClassicOnesByDefault() {
		this.contextRunner.withPropertyValues("distributed-lock.notifications=sharded").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new LockPropertyFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: distributed-lock.notifications")
				.contains("Value: \"sharded\"")
				.contains(JedisConnectionFactory.class.getName());
			assertThat(analysis.getAction()).contains("distributed-lock.notifications to auto or classic");
		});
		this.contextRunner.run((context) -> assertThat(context.getBean(RedisLockClient.class).getNotificationMode())
			.isEqualTo(NotificationMode.CLASSIC));
	}

	@Test
	void springBootPrintsTheReplicaSyncReportWhenTheApplicationFailsToStart(CapturedOutput output) {
		Throwable failure = FailedStartup
			.run(Map.of("spring.data.redis.client-type", "jedis", "distributed-lock.sync-replicas", "2"));
		assertThat(failure).hasRootCauseInstanceOf(InvalidLockPropertyException.class);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid value of distributed-lock.sync-replicas")
			.contains("Value: \"2\"")
			.contains("needs the Lettuce client")
			.contains("or set distributed-lock.sync-replicas to 0");
	}

	@Test
	void withoutReplicaSyncJedisStarts() {
		this.contextRunner.withPropertyValues("distributed-lock.sync-replicas=0")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(DistributedLockTemplate.class));
	}

}
