package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.aop.InvalidLockAnnotationException;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Methods that share a lock name share its Redis keys, so the startup refuses a name used with two permit
 * counts, or as a semaphore and a read/write lock, naming both methods and both counts; a read and a write
 * method of one name (one read/write lock) and two semaphore methods with the same count start.
 */
class PermitCountStartupTests {

	private static final RedisServer server = SharedRedis.server();

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
	}

	@Test
	void aNameWithTwoPermitCountsFailsTheStartupNamingBothMethodsAndCounts() {
		contextRunner().withBean(TwoCounts.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(InvalidLockAnnotationException.class)
				.hasMessageContaining("lock name 'export'")
				.hasMessageContaining("3 permits (a semaphore)")
				.hasMessageContaining("5 permits (a semaphore)")
				.hasMessageContaining("TwoCounts.exportSome(String)")
				.hasMessageContaining("TwoCounts.exportMore(String)");
		});
	}

	@Test
	void aSemaphoreNameUsedAsALockFailsTheStartup() {
		contextRunner().withBean(SemaphoreAndLock.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(InvalidLockAnnotationException.class)
				.hasMessageContaining("1 permit (a write lock)")
				.hasMessageContaining("2 permits (a semaphore)");
		});
	}

	@Test
	void oneReadWriteLockAndOneSemaphoreCountPerNameStart() {
		contextRunner().withBean(Consistent.class).run((context) -> assertThat(context).hasNotFailed());
	}

	static class TwoCounts {

		@DistributedLock(name = "export", key = "#tenant", permits = 3)
		public void exportSome(String tenant) {
		}

		@DistributedLock(name = "export", key = "#tenant", permits = 5)
		public void exportMore(String tenant) {
		}

	}

	static class SemaphoreAndLock {

		@DistributedLock(name = "calls", permits = 2)
		public void call() {
		}

		@DistributedLock(name = "calls", type = LockType.WRITE)
		public void change() {
		}

	}

	static class Consistent {

		@DistributedLock(name = "stock", type = LockType.READ)
		public void read() {
		}

		@DistributedLock(name = "stock", type = LockType.WRITE)
		public void write() {
		}

		@DistributedLock(name = "partner", permits = 3)
		public void call() {
		}

		@DistributedLock(name = "partner", permits = 3)
		public void callAgain() {
		}

	}

}
