package io.github.distributedlock.integration;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.autoconfigure.DistributedLockIntegrationAutoConfiguration;
import io.github.distributedlock.autoconfigure.LocalLockAutoConfiguration;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The auto-configured Spring Integration {@link LockRegistry}: when it is there and when it backs off
 * ({@link ApplicationContextRunner}, local store), and that its locks are the template's locks in Redis.
 */
class DistributedLockRegistryTests {

	private final ApplicationContextRunner localRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LocalLockAutoConfiguration.class,
				DistributedLockAutoConfiguration.class, DistributedLockIntegrationAutoConfiguration.class))
		.withPropertyValues("distributed-lock.store=local");

	@Test
	void registersALockRegistryOnTheTemplateWhenSpringIntegrationIsPresent() {
		this.localRunner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(LockRegistry.class);
			assertThat(context.getBean(LockRegistry.class)).isInstanceOf(DistributedLockRegistry.class);
		});
	}

	@Test
	void backsOffForTheApplicationsOwnLockRegistry() {
		this.localRunner.withBean("myLockRegistry", LockRegistry.class, DefaultLockRegistry::new).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(LockRegistry.class);
			assertThat(context.getBean(LockRegistry.class)).isInstanceOf(DefaultLockRegistry.class);
			assertThat(context).hasSingleBean(DistributedLockTemplate.class);
		});
	}

	@Test
	void registersNothingWithoutSpringIntegration() {
		this.localRunner.withClassLoader(new FilteredClassLoader("org.springframework.integration"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(DistributedLockTemplate.class)
				.doesNotHaveBean(DistributedLockRegistry.class));
	}

	@Test
	void registersNothingWhenTheLocksAreDisabled() {
		this.localRunner.withPropertyValues("distributed-lock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void refusesAKeyThatIsNotAStringNamingItsType() {
		this.localRunner.run((context) -> assertThatIllegalArgumentException()
			.isThrownBy(() -> context.getBean(LockRegistry.class).obtain(42L))
			.withMessageContaining("String lock key")
			.withMessageContaining("java.lang.Long"));
	}

	@Test
	void aRegistryLockIsTheTemplatesLockOnTheSameRedisKey() {
		String key = "registry:" + System.nanoTime();
		LockApplications.runTwo(LockApplications.runner("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + SharedRedis.server().port())
			.withConfiguration(AutoConfigurations.of(DistributedLockIntegrationAutoConfiguration.class)),
				(first, second) -> {
					Lock registryLock = first.getBean(LockRegistry.class).obtain(key);
					assertThat(registryLock.tryLock(5, TimeUnit.SECONDS)).isTrue();
					try {
						assertThat(SharedRedis.redis().hasKey("lock:" + key)).isTrue();
						// another instance's template, and another thread of the same instance, cannot take it
						assertThat(LockApplications.template(second).getLock(key).tryLock()).isFalse();
						assertThat(CompletableFuture
							.supplyAsync(() -> LockApplications.template(first).getLock(key).tryLock())
							.get(10, TimeUnit.SECONDS)).isFalse();
						// the holding thread re-enters through the template: one lock, reentrant
						Lock templateLock = LockApplications.template(first).getLock(key);
						assertThat(templateLock.tryLock()).isTrue();
						templateLock.unlock();
					}
					finally {
						registryLock.unlock();
					}
					assertThat(SharedRedis.redis().hasKey("lock:" + key)).isFalse();
				});
	}

	/**
	 * As Spring Integration's own registries: the locks of one key of one registry are equal (whichever thread
	 * obtained them), so code that keeps obtained locks in a set or map, or compares them, sees one lock.
	 */
	@Test
	void theLocksOfOneKeyOfOneRegistryAreEqual() {
		String key = "registry-equal:" + System.nanoTime();
		LockApplications.runTwo(LockApplications.runner("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + SharedRedis.server().port())
			.withConfiguration(AutoConfigurations.of(DistributedLockIntegrationAutoConfiguration.class)),
				(first, second) -> {
					LockRegistry<?> registry = first.getBean(LockRegistry.class);
					Lock lock = registry.obtain(key);
					Lock again = CompletableFuture.supplyAsync(() -> registry.obtain(key)).get(10, TimeUnit.SECONDS);
					assertThat(again).isEqualTo(lock).hasSameHashCodeAs(lock);
					assertThat(Set.of(lock, registry.obtain(key + ":other"))).contains(again).hasSize(2);
					assertThat(registry.obtain(key + ":other")).isNotEqualTo(lock);
					assertThat(second.getBean(LockRegistry.class).obtain(key)).isNotEqualTo(lock);
					// equal locks are one lock: what one locks, the other unlocks
					assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
					again.unlock();
					assertThat(SharedRedis.redis().hasKey("lock:" + key)).isFalse();
				});
	}

	@Test
	void aLockWithItsOwnTimeToLiveHasThatLease() {
		String key = "registry-ttl:" + System.nanoTime();
		LockApplications.runner("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + SharedRedis.server().port())
			.withConfiguration(AutoConfigurations.of(DistributedLockIntegrationAutoConfiguration.class))
			.run((context) -> {
				DistributedLock lock = (DistributedLock) context.getBean(LockRegistry.class).obtain(key);
				assertThat(lock.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(120))).isTrue();
				try {
					assertThat(SharedRedis.redis().getExpire("lock:" + key, TimeUnit.SECONDS)).isBetween(100L, 120L);
				}
				finally {
					lock.unlock();
				}
				assertThatIllegalArgumentException().isThrownBy(() -> lock.lock(Duration.ofMillis(10)));
			});
	}

}
