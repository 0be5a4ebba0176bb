package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.transaction.LockCommitGuard;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * Auto-configuration of the commit guard: a {@link LockCommitGuard} bean, a {@link TransactionExecutionListener}
 * that Spring Boot adds to the transaction managers it auto-configures, so that a transaction committing under a
 * lost distributed lock rolls back. Present when Spring's transaction support and a {@link DistributedLockTemplate}
 * are; {@code distributed-lock.commit-guard.enabled=false} turns it off; backs off for a user's
 * {@link LockCommitGuard} bean.
 */
@AutoConfiguration(after = { DistributedLockAutoConfiguration.class, LocalLockAutoConfiguration.class })
@ConditionalOnClass(TransactionExecutionListener.class)
@ConditionalOnBean(DistributedLockTemplate.class)
@ConditionalOnBooleanProperty(name = "distributed-lock.commit-guard.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistributedLockProperties.class)
public final class DistributedLockTransactionAutoConfiguration {

	/**
	 * Creates the auto-configuration; Spring Boot does, when the conditions above hold.
	 */
	public DistributedLockTransactionAutoConfiguration() {
	}

	@Bean
	@ConditionalOnMissingBean
	LockCommitGuard distributedLockCommitGuard(DistributedLockProperties properties) {
		// checked here, as the guard is made: a margin left behind while the guard is off fails nothing
		return new LockCommitGuard(LockPropertyChecks.commitGuardMargin(properties.getCommitGuard().getMargin()));
	}

}
