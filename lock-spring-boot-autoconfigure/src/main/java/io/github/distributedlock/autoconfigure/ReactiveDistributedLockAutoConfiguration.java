package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;

/**
 * Auto-configuration of the {@link ReactiveDistributedLockTemplate}, which locks {@code Mono} and {@code Flux}
 * work (and {@code @DistributedLock} methods returning them) without blocking a thread: when Reactor is on the
 * class path and the locks live in Redis with a reactive connection (Lettuce, the starter's client; Jedis has
 * none, and then there is no bean: {@code @DistributedLock} on a {@code Mono} method fails the startup with a
 * report saying so), or in the local store ({@code distributed-lock.store=local}). It runs on the same client
 * as the {@link DistributedLockTemplate} bean, decorators (metrics, observations) included, with its defaults.
 * Backs off for the application's own bean.
 */
@AutoConfiguration(after = { DistributedLockAutoConfiguration.class, LocalLockAutoConfiguration.class },
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration")
@ConditionalOnClass(Mono.class)
@ConditionalOnBean(DistributedLockTemplate.class)
@Conditional(ReactiveDistributedLockAutoConfiguration.NonBlockingStore.class)
public final class ReactiveDistributedLockAutoConfiguration {

	/**
	 * Creates the auto-configuration; Spring Boot does, when the conditions above hold.
	 */
	public ReactiveDistributedLockAutoConfiguration() {
	}

	@Bean
	@ConditionalOnMissingBean
	ReactiveDistributedLockTemplate reactiveDistributedLockTemplate(DistributedLockTemplate distributedLockTemplate) {
		return new ReactiveDistributedLockTemplate(distributedLockTemplate.getClient(),
				distributedLockTemplate.getDefaultLease(), distributedLockTemplate.getDefaultAcquireTimeout(),
				distributedLockTemplate.getDefaultOnLost());
	}

	/**
	 * A store whose client acquires asynchronously: Redis through a reactive connection factory, or the local
	 * store.
	 */
	static final class NonBlockingStore extends AnyNestedCondition {

		NonBlockingStore() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnBean(ReactiveRedisConnectionFactory.class)
		@ConditionalOnProperty(name = "distributed-lock.store", havingValue = "redis", matchIfMissing = true)
		static final class ReactiveRedis {

		}

		@ConditionalOnProperty(name = "distributed-lock.store", havingValue = "local")
		static final class LocalStore {

		}

	}

}
