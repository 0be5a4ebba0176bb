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
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
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

	private static final RedisServer server = SharedRedis.server();

	static final AtomicInteger inside = new AtomicInteger();

	static final AtomicInteger maxInside = new AtomicInteger();


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
			Concurrently.run(threadsPerInstance * 2, 120, (thread) -> {
				ApplicationContext instance = (thread % 2 == 0) ? first : second;
				CounterService counter = instance.getBean(CounterService.class);
				for (int i = 0; i < iterations; i++) {
					counter.increment("shared");
				}
			});
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
			Concurrently.incrementUnsafely(this.redis, "counter:" + name);
			inside.decrementAndGet();
		}

	}

}
