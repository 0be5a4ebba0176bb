package io.github.distributedlock.test;

import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Spring Boot applications with the library, as users run them: Spring Boot's Redis auto-configuration and
 * this library's, configured only by properties ({@code spring.data.redis.*}, {@code distributed-lock.*}).
 * Several applications started from one runner are independent instances: each has its own connections and
 * lock client.
 */
public final class LockApplications {

	private LockApplications() {
	}

	/**
	 * Returns a runner of applications with the Redis and the lock auto-configurations.
	 * @param properties {@code key=value} pairs, such as {@code "spring.data.redis.sentinel.master=mymaster"}
	 * @return the runner; it is immutable, so tests may share it
	 */
	public static ApplicationContextRunner runner(String... properties) {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class))
			.withPropertyValues(properties);
	}

	/** Work with two running instances of one application. */
	@FunctionalInterface
	public interface TwoInstances {

		void accept(AssertableApplicationContext first, AssertableApplicationContext second) throws Throwable;

	}

	/**
	 * Starts two instances from {@code runner}, runs {@code work} with both and closes them.
	 * @param runner the application
	 * @param work what to do with the two instances; its failure is the test's
	 */
	public static void runTwo(ApplicationContextRunner runner, TwoInstances work) {
		runner.run((first) -> runner.run((second) -> work.accept(first, second)));
	}

}
