package io.github.distributedlock.test;

import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.redis.RedisLockClient;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

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

	/**
	 * Returns the lock client of a running instance.
	 * @param instance the application
	 * @return its {@link RedisLockClient}
	 */
	public static RedisLockClient client(AssertableApplicationContext instance) {
		return instance.getBean(RedisLockClient.class);
	}

	/**
	 * Returns the lock template of a running instance.
	 * @param instance the application
	 * @return its {@link DistributedLockTemplate}
	 */
	public static DistributedLockTemplate template(AssertableApplicationContext instance) {
		return instance.getBean(DistributedLockTemplate.class);
	}

	/**
	 * Returns a string template on the Redis connections of a running instance.
	 * @param instance the application
	 * @return a new template on its {@link RedisConnectionFactory}
	 */
	public static StringRedisTemplate redis(AssertableApplicationContext instance) {
		return new StringRedisTemplate(instance.getBean(RedisConnectionFactory.class));
	}

	/** Work with two running instances of one application. */
	@FunctionalInterface
	public interface TwoInstances {

		/**
		 * Works with both instances.
		 * @param first the first instance
		 * @param second the second instance
		 * @throws Throwable the test's failure
		 */
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
