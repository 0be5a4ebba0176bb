package io.github.distributedlock.autoconfigure;

import javax.sql.DataSource;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.DefaultTransactionStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock spans {@code @Transactional}: with a real JDBC transaction manager, the lock is still held in
 * Redis when the transaction commits.
 */
class TransactionalLockTests {

	private static final RedisServer server = SharedRedis.server();


	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class))
			.withUserConfiguration(LedgerConfiguration.class)
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
	}

	@Test
	void theLockIsStillHeldWhenTheTransactionCommits() {
		contextRunner().run((context) -> {
			context.getBean(LedgerService.class).post(10);
			ObservingTransactionManager transactions = context.getBean(ObservingTransactionManager.class);
			assertThat(transactions.commits).isEqualTo(1);
			assertThat(transactions.lockHeldAtCommit).isTrue();
			assertThat(context.getBean(JdbcTemplate.class).queryForObject("select sum(amount) from ledger", Integer.class))
				.isEqualTo(10);
			assertThat(new StringRedisTemplate(context.getBean(RedisConnectionFactory.class)).hasKey("lock:ledger"))
				.isFalse();
		});
	}

	@Test
	void withTheAdvisorOrderedInsideTheTransactionTheLockWouldBeGoneAtCommit() {
		// the control: the same check fails when the order property puts the lock inside the transaction
		contextRunner().withPropertyValues("distributed-lock.advisor-order=" + Integer.MAX_VALUE)
			.withUserConfiguration(EarlyTransactions.class)
			.run((context) -> {
				context.getBean(LedgerService.class).post(5);
				assertThat(context.getBean(ObservingTransactionManager.class).lockHeldAtCommit).isFalse();
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class LedgerConfiguration {

		@Bean
		DataSource dataSource() {
			return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
				.generateUniqueName(true)
				.addScript("classpath:ledger.sql")
				.build();
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			return new JdbcTemplate(dataSource);
		}

		@Bean
		ObservingTransactionManager transactionManager(DataSource dataSource, RedisConnectionFactory redis) {
			return new ObservingTransactionManager(dataSource, new StringRedisTemplate(redis));
		}

		@Bean
		LedgerService ledgerService(JdbcTemplate jdbcTemplate) {
			return new LedgerService(jdbcTemplate);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = 0)
	static class EarlyTransactions {

	}

	static class LedgerService {

		private final JdbcTemplate jdbcTemplate;

		LedgerService(JdbcTemplate jdbcTemplate) {
			this.jdbcTemplate = jdbcTemplate;
		}

		@DistributedLock(name = "ledger")
		@Transactional
		public void post(int amount) {
			this.jdbcTemplate.update("insert into ledger(amount) values (?)", amount);
		}

	}

	static class ObservingTransactionManager extends DataSourceTransactionManager {

		private static final long serialVersionUID = 1L;

		private final transient StringRedisTemplate redis;

		volatile int commits;

		volatile Boolean lockHeldAtCommit;

		ObservingTransactionManager(DataSource dataSource, StringRedisTemplate redis) {
			super(dataSource);
			this.redis = redis;
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
			this.lockHeldAtCommit = this.redis.hasKey("lock:ledger");
			this.commits++;
			super.doCommit(status);
		}

	}

}
