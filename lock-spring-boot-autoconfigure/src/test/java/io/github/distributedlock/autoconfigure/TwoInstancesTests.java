package io.github.distributedlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two application contexts, as two instances of one application, sharing one Redis: an annotated method
 * runs for one caller at a time across both.
 */
class TwoInstancesTests {

	private static RedisServer server;

	static final AtomicInteger inside = new AtomicInteger();

	static final AtomicInteger maxInside = new AtomicInteger();

	@BeforeAll
	static void startRedis() {
		server = RedisServer.start();
	}

	@AfterAll
	static void stopRedis() {
		server.close();
	}

	@Test
	void neverTwoHoldersAndNoLostUpdateAcrossTwoInstances() {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class))
			.withUserConfiguration(CounterConfiguration.class)
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"distributed-lock.acquire-timeout=60s");
		runner.run((first) -> runner.run((second) -> {
			assertThat(first.getBean(RedisLockClient.class).getClientId())
				.isNotEqualTo(second.getBean(RedisLockClient.class).getClientId());
			int threadsPerInstance = 6;
			int iterations = 30;
			ExecutorService pool = Executors.newFixedThreadPool(threadsPerInstance * 2);
			try {
				List<Future<?>> futures = new ArrayList<>();
				for (int t = 0; t < threadsPerInstance * 2; t++) {
					ApplicationContext instance = (t % 2 == 0) ? first : second;
					CounterService counter = instance.getBean(CounterService.class);
					futures.add(pool.submit(() -> {
						for (int i = 0; i < iterations; i++) {
							counter.increment("shared");
						}
						return null;
					}));
				}
				for (Future<?> future : futures) {
					future.get(120, TimeUnit.SECONDS);
				}
			}
			finally {
				pool.shutdownNow();
			}
			assertThat(maxInside.get()).isEqualTo(1);
			StringRedisTemplate redis = new StringRedisTemplate(first.getBean(RedisConnectionFactory.class));
			assertThat(redis.opsForValue().get("counter:shared"))
				.isEqualTo(Integer.toString(threadsPerInstance * 2 * iterations));
		}));
	}

	@Configuration(proxyBeanMethods = false)
	static class CounterConfiguration {

		@Bean
		CounterService counterService(RedisConnectionFactory connectionFactory) {
			return new CounterService(new StringRedisTemplate(connectionFactory));
		}

	}

	static class CounterService {

		private final StringRedisTemplate redis;

		CounterService(StringRedisTemplate redis) {
			this.redis = redis;
		}

		@DistributedLock(name = "counter", key = "#name")
		public void increment(String name) {
			maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
			// read-modify-write: loses updates unless the lock excludes the other instance
			String value = this.redis.opsForValue().get("counter:" + name);
			this.redis.opsForValue().set("counter:" + name, Integer.toString((value == null) ? 1 : Integer.parseInt(value) + 1));
			inside.decrementAndGet();
		}

	}

}
