package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.integration.DistributedLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Auto-configuration of a Spring Integration {@link LockRegistry} on these locks, a
 * {@link DistributedLockRegistry} on the {@link DistributedLockTemplate} bean: when {@code spring-integration-core}
 * is on the class path, so that {@code LockRegistryLeaderInitiator} and the other Spring Integration components
 * that take a {@code LockRegistry} lock across instances. Backs off when the application defines a
 * {@code LockRegistry} of its own.
 */
@AutoConfiguration(after = { DistributedLockAutoConfiguration.class, LocalLockAutoConfiguration.class })
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(DistributedLockTemplate.class)
public final class DistributedLockIntegrationAutoConfiguration {

	/**
	 * Creates the auto-configuration; Spring Boot does, when the conditions above hold.
	 */
	public DistributedLockIntegrationAutoConfiguration() {
	}

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	DistributedLockRegistry distributedLockRegistry(DistributedLockTemplate distributedLockTemplate) {
		return new DistributedLockRegistry(distributedLockTemplate);
	}

}
