package io.github.distributedlock.lost;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.autoconfigure.DistributedLockTransactionAutoConfiguration;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.CommandStats;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.transaction.LockCommitGuard;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The commit guard with Spring Boot's own JDBC transaction manager on an embedded H2 database and a real
 * redis-server: a transaction whose lock is lost before its commit is rolled back; with the guard off it
 * commits; a healthy lock commits and the guard costs no Redis command.
 */
class CommitGuardTests {

	private static RedisServer server;

	private static LettuceConnectionFactory connectionFactory;

	private static StringRedisTemplate redis;

	private final String sku = "sku-" + UUID.randomUUID();

	@BeforeAll
	static void startRedis() {
		// a server of its own, for the command counts
		server = RedisServer.start();
		connectionFactory = server.connectionFactory();
		redis = new StringRedisTemplate(connectionFactory);
	}

	@AfterAll
	static void stopRedis() {
		connectionFactory.destroy();
		server.close();
	}

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DistributedLockAutoConfiguration.class, DistributedLockTransactionAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					JdbcTemplateAutoConfiguration.class, JdbcClientAutoConfiguration.class,
					TransactionManagerCustomizationAutoConfiguration.class, TransactionAutoConfiguration.class))
			.withUserConfiguration(StockConfiguration.class)
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"spring.datasource.url=" + databaseUrl(), "spring.sql.init.mode=never");
	}

	/**
	 * The JDBC URL of the database the tests write; a subclass may name another database.
	 * @return a new embedded H2 database
	 */
	String databaseUrl() {
		return "jdbc:h2:mem:" + UUID.randomUUID();
	}

	private void createStock(AssertableApplicationContext context, int quantity) {
		JdbcClient jdbc = context.getBean(JdbcClient.class);
		jdbc.sql("create table if not exists stock (sku varchar(64) primary key, qty int not null)").update();
		// the database may outlive one application (PostgreSQL): each starts from its own row
		jdbc.sql("delete from stock where sku = ?").param(this.sku).update();
		jdbc.sql("insert into stock (sku, qty) values (?, ?)").params(this.sku, quantity).update();
	}

	private int quantity(AssertableApplicationContext context) {
		return context.getBean(JdbcClient.class)
			.sql("select qty from stock where sku = ?")
			.param(this.sku)
			.query(Integer.class)
			.single();
	}

	/** Deletes the lock in Redis under the running method, and waits until its holder knows it lost it. */
	private static void loseTheLock() {
		LockHandle handle = LockContext.current();
		redis.delete("lock:" + handle.key());
		await().atMost(Duration.ofSeconds(10)).until(handle::isLost);
	}

	@Test
	void aTransactionalWriteUnderALockLostBeforeTheCommitIsRolledBack() {
		runner().run((context) -> {
			createStock(context, 10);
			long start = System.nanoTime();
			assertThatThrownBy(() -> context.getBean(StockService.class).set(this.sku, 3, CommitGuardTests::loseTheLock))
				.isInstanceOf(LockLostException.class)
				.hasMessageContaining("stock:" + this.sku);
			System.out.println("commit guard: rolled back " + Duration.ofNanos(System.nanoTime() - start).toMillis()
					+ " ms after the call started (the loss is found by the watchdog within a renewal period)");
			assertThat(quantity(context)).isEqualTo(10);
		});
	}

	@Test
	void withTheGuardOffTheWriteCommitsAndTheLossIsOnlyReportedAtRelease() {
		runner().withPropertyValues("distributed-lock.commit-guard.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LockCommitGuard.class);
			createStock(context, 10);
			assertThatThrownBy(() -> context.getBean(StockService.class).set(this.sku, 3, CommitGuardTests::loseTheLock))
				.isInstanceOf(LockLostException.class);
			assertThat(quantity(context)).isEqualTo(3);
		});
	}

	@Test
	void aTransactionTemplateInsideExecuteIsRolledBackToo() {
		runner().run((context) -> {
			createStock(context, 10);
			TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
			JdbcClient jdbc = context.getBean(JdbcClient.class);
			DistributedLockTemplate locks = context.getBean(DistributedLockTemplate.class);
			assertThatThrownBy(() -> locks.execute(LockDefinition.builder("stock:" + this.sku).lease(Duration.ofMillis(600)).build(),
					() -> transactions.execute((status) -> {
						jdbc.sql("update stock set qty = ? where sku = ?").params(4, this.sku).update();
						loseTheLock();
						return null;
					})))
				.isInstanceOf(LockLostException.class);
			assertThat(quantity(context)).isEqualTo(10);
		});
	}

	@Test
	void aLeaseThatEndsWithinTheMarginIsRefusedBeforeItIsLost() {
		runner().withPropertyValues("distributed-lock.commit-guard.margin=800ms").run((context) -> {
			assertThat(context.getBean(LockCommitGuard.class).getMargin()).isEqualTo(Duration.ofMillis(800));
			createStock(context, 10);
			TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
			JdbcClient jdbc = context.getBean(JdbcClient.class);
			DistributedLockTemplate locks = context.getBean(DistributedLockTemplate.class);
			LockDefinition hardLease = LockDefinition.builder("stock:" + this.sku)
				.lease(Duration.ofMillis(1500))
				.autoRenew(false)
				.build();
			assertThatThrownBy(() -> locks.execute(hardLease, () -> transactions.execute((status) -> {
				jdbc.sql("update stock set qty = ? where sku = ?").params(5, this.sku).update();
				LockHandle handle = LockContext.current();
				// still held, but a commit that takes the margin would end after the lease
				await().atMost(Duration.ofSeconds(5))
					.until(() -> Duration.between(Instant.now(), handle.leaseConfirmedUntil()).toMillis() < 600);
				assertThat(handle.isLost()).isFalse();
				return null;
			}))).isInstanceOf(LockLostException.class).hasMessageContaining("within the margin of 800 ms");
			assertThat(quantity(context)).isEqualTo(10);
		});
	}

	@Test
	void aHealthyLockCommitsAndTheGuardAddsNoRedisCommand() {
		long withGuard = commandsOfOneLockedTransaction(runner());
		long withoutGuard = commandsOfOneLockedTransaction(
				runner().withPropertyValues("distributed-lock.commit-guard.enabled=false"));
		System.out.println("commit guard: Redis commands of one locked transaction: " + withGuard + " with the guard, "
				+ withoutGuard + " without");
		// acquire and release at least, and not one more with the guard
		assertThat(withGuard).isGreaterThanOrEqualTo(2).isEqualTo(withoutGuard);
	}

	/** Runs one healthy locked transaction (after a warm-up one), and counts the Redis commands it took. */
	private long commandsOfOneLockedTransaction(ApplicationContextRunner runner) {
		long[] commands = new long[1];
		runner.run((context) -> {
			createStock(context, 10);
			StockService service = context.getBean(StockService.class);
			service.setLongLease(this.sku, 1);
			CommandStats.reset(redis);
			service.setLongLease(this.sku, 2);
			commands[0] = CommandStats.calls(redis, "(?!info)[a-z|]+");
			assertThat(quantity(context)).isEqualTo(2);
		});
		return commands[0];
	}

	@Configuration(proxyBeanMethods = false)
	static class StockConfiguration {

		@Bean
		StockService stockService(JdbcClient jdbc) {
			return new StockService(jdbc);
		}

	}

	static class StockService {

		private final JdbcClient jdbc;

		StockService(JdbcClient jdbc) {
			this.jdbc = jdbc;
		}

		@DistributedLock(name = "stock", key = "#sku", lease = "600ms")
		@Transactional
		public void set(String sku, int quantity, Runnable beforeCommit) {
			this.jdbc.sql("update stock set qty = ? where sku = ?").params(quantity, sku).update();
			beforeCommit.run();
		}

		@DistributedLock(name = "stock", key = "#sku")
		@Transactional
		public void setLongLease(String sku, int quantity) {
			this.jdbc.sql("update stock set qty = ? where sku = ?").params(quantity, sku).update();
		}

	}

}
