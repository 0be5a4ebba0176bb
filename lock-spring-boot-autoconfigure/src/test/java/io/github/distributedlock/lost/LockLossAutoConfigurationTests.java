package io.github.distributedlock.lost;

import java.time.Duration;

import io.github.distributedlock.annotation.OnLockLoss;
import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.autoconfigure.DistributedLockFencingAutoConfiguration;
import io.github.distributedlock.autoconfigure.DistributedLockTransactionAutoConfiguration;
import io.github.distributedlock.autoconfigure.InvalidLockPropertyException;
import io.github.distributedlock.autoconfigure.ReactiveDistributedLockAutoConfiguration;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.fencing.FencedJdbc;
import io.github.distributedlock.fencing.FencedRedis;
import io.github.distributedlock.test.SharedRedis;
import io.github.distributedlock.transaction.LockCommitGuard;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.TransactionExecutionListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configuration of what reacts to lost locks: the {@code on-lost} default, the commit guard and the
 * fenced writers, and how each backs off.
 */
class LockLossAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class,
				ReactiveDistributedLockAutoConfiguration.class, DistributedLockTransactionAutoConfiguration.class,
				DistributedLockFencingAutoConfiguration.class, DataSourceAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + SharedRedis.server().host(),
				"spring.data.redis.port=" + SharedRedis.server().port(), "spring.datasource.url=jdbc:h2:mem:fencing");

	@Test
	void theDefaultsAreNoInterruptAGuardWithAOneSecondMarginAndBothFencedWriters() {
		this.runner.run((context) -> {
			assertThat(context.getBean(DistributedLockTemplate.class).getDefaultOnLost()).isEqualTo(OnLockLoss.NONE);
			assertThat(context.getBean(LockCommitGuard.class).getMargin()).isEqualTo(Duration.ofSeconds(1));
			assertThat(context).hasSingleBean(FencedJdbc.class).hasSingleBean(FencedRedis.class);
		});
	}

	@Test
	void onLostIsBoundToTheTemplatesDefault() {
		this.runner.withPropertyValues("distributed-lock.on-lost=interrupt")
			.run((context) -> assertThat(context.getBean(DistributedLockTemplate.class).getDefaultOnLost())
				.isEqualTo(OnLockLoss.INTERRUPT));
	}

	@Test
	void aNegativeMarginFailsTheStartupNamingTheProperty() {
		this.runner.withPropertyValues("distributed-lock.commit-guard.margin=-1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOfSatisfying(InvalidLockPropertyException.class,
						(ex) -> assertThat(ex.getProperty()).isEqualTo("distributed-lock.commit-guard.margin")));
	}

	@Test
	void withoutSpringTransactionsThereIsNoGuard() {
		this.runner.withClassLoader(new FilteredClassLoader(TransactionExecutionListener.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockCommitGuard.class));
	}

	@Test
	void withLocksOffThereIsNothing() {
		this.runner.withPropertyValues("distributed-lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockCommitGuard.class)
				.doesNotHaveBean(FencedJdbc.class)
				.doesNotHaveBean(FencedRedis.class));
	}

}
