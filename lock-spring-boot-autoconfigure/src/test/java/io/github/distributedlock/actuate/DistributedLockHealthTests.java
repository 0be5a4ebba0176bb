package io.github.distributedlock.actuate;

import java.time.Duration;
import java.util.Map;

import io.github.distributedlock.test.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code distributedLock} health contributor of an application on a real web server, and its gauge
 * {@code distributed.lock.health}, while the test's own {@code redis-server} is killed and started again.
 */
class DistributedLockHealthTests {

	@Test
	@SuppressWarnings("unchecked")
	void downWithinSecondsAfterRedisIsKilledAndUpWhenItIsBackAndTheGaugeSaysSo() {
		try (RedisServer redis = RedisServer.start(); WebApp app = WebApp.start(redis)) {
			Map<String, Object> up = app.get("/health/distributedLock");
			assertThat(up).containsEntry("status", "UP");
			assertThat((Map<String, Object>) up.get("details")).containsEntry("redis", "up")
				.containsEntry("releaseSubscription", "listening");
			assertThat(app.status("/metrics/distributed.lock.health")).as("the health gauge").isEqualTo(200);
			Awaitility.await("distributed.lock.health = 1").atMost(Duration.ofSeconds(10))
				.until(() -> app.meter("distributed.lock.health") == 1);

			redis.kill();
			long killedAt = System.nanoTime();
			Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
				.until(() -> "DOWN".equals(app.get("/health/distributedLock").get("status")));
			assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).isLessThan(Duration.ofSeconds(10));
			Map<String, Object> down = app.get("/health/distributedLock");
			assertThat((String) ((Map<String, Object>) down.get("details")).get("redis")).startsWith("down");
			assertThat(app.status("/health/distributedLock")).isEqualTo(503);
			// a read returns the last check's result and starts the next one
			Awaitility.await("distributed.lock.health = 0").atMost(Duration.ofSeconds(10))
				.until(() -> app.meter("distributed.lock.health") == 0);

			redis.restart();
			Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
				.until(() -> "UP".equals(app.get("/health/distributedLock").get("status")));
			assertThat((Map<String, Object>) app.get("/health/distributedLock").get("details"))
				.containsEntry("releaseSubscription", "listening");
			Awaitility.await("distributed.lock.health = 1").atMost(Duration.ofSeconds(10))
				.until(() -> app.meter("distributed.lock.health") == 1);
		}
	}

}
