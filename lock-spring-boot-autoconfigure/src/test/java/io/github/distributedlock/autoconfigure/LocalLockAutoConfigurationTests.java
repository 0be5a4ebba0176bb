package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.aop.DistributedLockAdvisor;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.local.LocalLockClient;
import io.github.distributedlock.local.LocalLockStore;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code distributed-lock.store=local}: {@link LocalLockAutoConfiguration} with {@link ApplicationContextRunner},
 * without Redis.
 */
class LocalLockAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LocalLockAutoConfiguration.class, DistributedLockAutoConfiguration.class))
		.withPropertyValues("distributed-lock.store=local");

	@Test
	void registersTheLocalClientTemplateAndAdvisorWithoutAnyRedisBean() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisConnectionFactory.class)
				.hasSingleBean(LocalLockClient.class)
				.hasSingleBean(DistributedLockTemplate.class)
				.hasSingleBean(DistributedLockAdvisor.class);
			DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
			assertThat(template.getClient()).isSameAs(context.getBean(LockClient.class));
			assertThat(template.getDefaultLease()).isEqualTo(Duration.ofSeconds(30));
			assertThat(context.getBean(LocalLockClient.class).storeKey("order:42")).isEqualTo("lock:order:42");
			assertThat(template.execute("order:42", () -> LocalLockStore.shared().contains("lock:order:42"))).isTrue();
			assertThat(LocalLockStore.shared().contains("lock:order:42")).isFalse();
		});
	}

	@Test
	void aUsersServiceWithTheTemplateAndTheAnnotationRunsWithoutSpringDataRedis() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.withPropertyValues("distributed-lock.key-prefix=local-test:" + System.nanoTime() + ":")
			.withBean(Counter.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(LocalLockClient.class);
				Counter counter = context.getBean(Counter.class);
				assertThat(AopUtils.isAopProxy(counter)).isTrue();
				int threads = 8;
				int iterations = 50;
				Concurrently.run(threads, 60, (thread) -> {
					for (int i = 0; i < iterations; i++) {
						if (i % 2 == 0) {
							counter.increment();
						}
						else {
							counter.incrementThroughTheTemplate();
						}
					}
				});
				assertThat(counter.maxInside()).isEqualTo(1);
				assertThat(counter.value()).isEqualTo(threads * iterations);
				assertThat(counter.lastToken()).isPositive();
			});
	}

	@Test
	void keepsTheLocalClientWhenSpringDataRedisIsThere() {
		RedisServer server = SharedRedis.server();
		this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port())
			.run((context) -> {
				assertThat(context).hasSingleBean(LocalLockClient.class)
					.doesNotHaveBean(RedisLockClient.class)
					.hasSingleBean(DistributedLockTemplate.class);
			});
	}

	@Test
	void theStoreIsRedisByDefault() {
		RedisServer server = SharedRedis.server();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocalLockAutoConfiguration.class,
					DistributedLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port())
			.run((context) -> {
				assertThat(context).hasSingleBean(RedisLockClient.class).doesNotHaveBean(LocalLockClient.class);
				assertThat(context.getBean(DistributedLockProperties.class).getStore())
					.isEqualTo(DistributedLockProperties.Store.REDIS);
			});
	}

	@Test
	void backsOffForTheApplicationsOwnClient() {
		LocalLockClient own = new LocalLockClient();
		this.contextRunner.withBean("myClient", LockClient.class, () -> own).run((context) -> {
			assertThat(context).hasSingleBean(LockClient.class);
			assertThat(context.getBean(DistributedLockTemplate.class).getClient()).isSameAs(own);
		});
	}

	@Test
	void isOffWhenDisabled() {
		this.contextRunner.withPropertyValues("distributed-lock.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockClient.class)
				.doesNotHaveBean(DistributedLockTemplate.class)
				.doesNotHaveBean(DistributedLockAdvisor.class);
		});
	}

	@Test
	void anUnknownStoreFailsTheStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("distributed-lock.store=memory").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("distributed-lock.store");
		});
	}

	@Test
	void closingTheContextClosesTheClient() {
		LocalLockClient[] client = new LocalLockClient[1];
		this.contextRunner.run((context) -> client[0] = context.getBean(LocalLockClient.class));
		assertThatThrownBy(() -> client[0].acquire(LockRequest.builder("x").lease(Duration.ofSeconds(1))
				.interruptible(false).releasedByThread().build()))
			.isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("closed");
	}

	/**
	 * A user's service: a read-modify-write that loses updates unless the lock makes callers take turns. Public,
	 * so that its proxy class, defined in the filtered class loader, may extend it.
	 */
	public static class Counter {

		private final AtomicInteger value = new AtomicInteger();

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger maxInside = new AtomicInteger();

		private final AtomicLong lastToken = new AtomicLong();

		private final DistributedLockTemplate locks;

		public Counter(DistributedLockTemplate locks) {
			this.locks = locks;
		}

		@DistributedLock(name = "counter")
		public void increment() {
			incrementUnsafely();
		}

		public void incrementThroughTheTemplate() {
			this.locks.execute("counter", () -> {
				incrementUnsafely();
				return null;
			});
		}

		public int value() {
			return this.value.get();
		}

		public int maxInside() {
			return this.maxInside.get();
		}

		public long lastToken() {
			return this.lastToken.get();
		}

		private void incrementUnsafely() {
			this.maxInside.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
			this.lastToken.set(LockContext.current().fencingToken());
			int read = this.value.get();
			Thread.yield();
			this.value.set(read + 1);
			this.inside.decrementAndGet();
		}

	}

}
