package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.aop.LockAnnotationValidator;
import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration.DistributedLockAdvisorConfiguration;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockClientDecorator;
import io.github.distributedlock.core.LockLostEventPublisher;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.local.LocalLockClient;
import io.github.distributedlock.local.LocalLockStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration of locks in this JVM, with {@code distributed-lock.store=local}: a {@link LocalLockClient}
 * on the {@linkplain LocalLockStore#shared() shared store}, the {@link DistributedLockTemplate} and the
 * {@code @DistributedLock} advisor, with neither Redis nor a {@code RedisConnectionFactory} needed. For tests
 * of code that uses locks and for single-instance development: it excludes nothing across JVMs. As on Redis,
 * the client tells every {@link LockObserver} bean what happens to its locks (meters, {@code LockLostEvent}s)
 * and the template runs on the client as decorated by every {@link LockClientDecorator} bean (the acquire
 * observation). One INFO line at startup says the locks are in this JVM only.
 * <p>
 * Runs before {@link DistributedLockAutoConfiguration}, whose Redis client then backs off; every bean backs
 * off when the application defines its own.
 */
@AutoConfiguration(before = DistributedLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "distributed-lock.store", havingValue = "local")
@EnableConfigurationProperties(DistributedLockProperties.class)
@Import(DistributedLockAdvisorConfiguration.class)
public final class LocalLockAutoConfiguration {

	/**
	 * Creates the auto-configuration; Spring Boot does, when the conditions above hold.
	 */
	public LocalLockAutoConfiguration() {
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockClient.class)
	LocalLockClient distributedLockClient(DistributedLockProperties properties, ObjectProvider<LockObserver> observers) {
		LocalLockClient client = new LocalLockClient(LocalLockStore.shared(), properties.getKeyPrefix());
		client.setLockObserver(LockObserver.of(observers.orderedStream().toList()));
		return client;
	}

	// also here, not only in DistributedLockAutoConfiguration: that one is off without Spring Data Redis
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(LockClient.class)
	DistributedLockTemplate distributedLockTemplate(LockClient lockClient, DistributedLockProperties properties,
			ObjectProvider<LockClientDecorator> decorators) {
		return LockTemplateFactory.create(lockClient, properties, decorators);
	}

	// the startup line; here, since DistributedLockAutoConfiguration is off without Spring Data Redis (and when
	// it is on, its own backs off for this one)
	@Bean
	@ConditionalOnBean(DistributedLockTemplate.class)
	@ConditionalOnMissingBean(DistributedLockStartupLogger.class)
	DistributedLockStartupLogger distributedLockStartupLogger(DistributedLockTemplate distributedLockTemplate,
			ObjectProvider<LockAnnotationValidator> validator) {
		return new DistributedLockStartupLogger(distributedLockTemplate, validator, LockStoreSummary.NONE);
	}

	/**
	 * Publishes a {@code LockLostEvent} when the client learns it lost a lock; also here, as the template is,
	 * since {@link DistributedLockAutoConfiguration} is off without Spring Data Redis.
	 */
	@Bean
	@ConditionalOnMissingBean
	LockLostEventPublisher distributedLockLostEventPublisher(ApplicationEventPublisher publisher) {
		return new LockLostEventPublisher(publisher);
	}

}
