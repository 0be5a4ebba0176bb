package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.aop.DistributedLockAdvisor;
import io.github.distributedlock.aop.DistributedLockInterceptor;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link DistributedLockAutoConfiguration} with {@link ApplicationContextRunner}, on a real Redis.
 */
class DistributedLockAutoConfigurationTests {

	private static final RedisServer server = SharedRedis.server();

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
	}


	@Test
	void registersTheClientTemplateAndAdvisorWithTheDocumentedDefaults() {
		contextRunner().run((context) -> {
			assertThat(context).hasSingleBean(RedisLockClient.class)
				.hasSingleBean(DistributedLockTemplate.class)
				.hasSingleBean(DistributedLockInterceptor.class)
				.hasSingleBean(DistributedLockAdvisor.class);
			DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
			assertThat(template.getDefaultLease()).isEqualTo(Duration.ofSeconds(30));
			assertThat(template.getDefaultAcquireTimeout()).isEqualTo(Duration.ofSeconds(5));
			assertThat(context.getBean(RedisLockClient.class).redisKey("order:42")).isEqualTo("lock:order:42");
			assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
				.isEqualTo(DistributedLockProperties.DEFAULT_ADVISOR_ORDER)
				.isLessThan(Integer.MAX_VALUE);
		});
	}

	@Test
	void bindsTheProperties() {
		contextRunner()
			.withPropertyValues("distributed-lock.key-prefix=app:locks:", "distributed-lock.lease=10s",
					"distributed-lock.acquire-timeout=0", "distributed-lock.advisor-order=5")
			.run((context) -> {
				DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
				assertThat(template.getDefaultLease()).isEqualTo(Duration.ofSeconds(10));
				assertThat(template.getDefaultAcquireTimeout()).isZero();
				RedisLockClient client = context.getBean(RedisLockClient.class);
				assertThat(client.redisKey("x")).isEqualTo("app:locks:x");
				assertThat(client.getChannel()).isEqualTo("app:locks:__released");
				assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(5);
			});
	}

	@Test
	void bindsEveryGroupIntoTheOnePropertiesBeanUnderItsOwnPrefix() {
		contextRunner()
			.withPropertyValues("distributed-lock.commit-guard.enabled=false", "distributed-lock.commit-guard.margin=2s",
					"distributed-lock.endpoint.force-release-enabled=true",
					"distributed-lock.redlock.nodes=redis://a:6379,redis://b:6379,redis://c:6379",
					"distributed-lock.redlock.node-timeout=250ms", "distributed-lock.redlock.drift-factor=0.02",
					"distributed-lock.redlock.retry-delay=1s", "distributed-lock.redlock.min-validity=70ms",
					"distributed-lock.redlock.ssl-bundle=nodes")
			.run((context) -> {
				assertThat(context).hasSingleBean(DistributedLockProperties.class);
				assertThat(context.getBeansWithAnnotation(ConfigurationProperties.class).values())
					.filteredOn((bean) -> bean.getClass().getPackageName().startsWith("io.github.distributedlock"))
					.hasSize(1);
				DistributedLockProperties properties = context.getBean(DistributedLockProperties.class);
				assertThat(properties.getCommitGuard().isEnabled()).isFalse();
				assertThat(properties.getCommitGuard().getMargin()).isEqualTo(Duration.ofSeconds(2));
				assertThat(properties.getEndpoint().isForceReleaseEnabled()).isTrue();
				DistributedLockProperties.Redlock redlock = properties.getRedlock();
				assertThat(redlock.getNodes()).containsExactly("redis://a:6379", "redis://b:6379", "redis://c:6379");
				assertThat(redlock.getNodeTimeout()).isEqualTo(Duration.ofMillis(250));
				assertThat(redlock.getDriftFactor()).isEqualTo(0.02);
				assertThat(redlock.getRetryDelay()).isEqualTo(Duration.ofSeconds(1));
				assertThat(redlock.getMinValidity()).isEqualTo(Duration.ofMillis(70));
				assertThat(redlock.getSslBundle()).isEqualTo("nodes");
			});
	}

	@Test
	void aLeaseTooShortToRenewFailsTheStartupNamingTheProperty() {
		contextRunner().withPropertyValues("distributed-lock.lease=20ms").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("distributed-lock.lease")
				.hasMessageContaining("too short to renew");
		});
	}

	@Test
	void backsOffForTheApplicationsOwnBeans() {
		contextRunner().withUserConfiguration(OwnBeans.class).run((context) -> {
			assertThat(context).hasSingleBean(DistributedLockTemplate.class).hasSingleBean(LockClient.class);
			assertThat(context.getBean(DistributedLockTemplate.class)).isSameAs(context.getBean("myTemplate"));
			assertThat(context.getBean(LockClient.class)).isSameAs(context.getBean("myClient"));
		});
	}

	@Test
	void isOffWhenDisabled() {
		contextRunner().withPropertyValues("distributed-lock.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockClient.class)
				.doesNotHaveBean(DistributedLockTemplate.class)
				.doesNotHaveBean(DistributedLockAdvisor.class);
		});
	}

	@Test
	void isOffWithoutSpringDataRedis() {
		// all of Spring Data Redis: with only its connection factory hidden, Boot's Lettuce and Jedis
		// configurations would both register one when both clients are on the (test) classpath
		contextRunner().withClassLoader(new FilteredClassLoader("org.springframework.data.redis.")).run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockClient.class)
				.doesNotHaveBean(DistributedLockTemplate.class);
		});
	}

	@Test
	void proxiesAnnotatedBeansAndLocksTheirMethods() {
		contextRunner().withUserConfiguration(ServiceConfiguration.class).run((context) -> {
			LockedService service = context.getBean(LockedService.class);
			assertThat(AopUtils.isAopProxy(service)).isTrue();
			StringRedisTemplate redis = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
			assertThat(service.whileLocked(() -> redis.hasKey("lock:job:7"), "7")).isTrue();
			assertThat(redis.hasKey("lock:job:7")).isFalse();
		});
	}

	@Test
	void proxiesAnnotatedBeansAlsoWithSpringBootsAopAutoConfiguration() {
		contextRunner().withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
			.withUserConfiguration(ServiceConfiguration.class)
			.run((context) -> {
				LockedService service = context.getBean(LockedService.class);
				assertThat(AopUtils.isCglibProxy(service)).isTrue();
				assertThat(service.whileLocked(() -> true, "8")).isTrue();
			});
	}

	@Test
	void closingTheContextClosesTheClient() {
		RedisLockClient[] client = new RedisLockClient[1];
		contextRunner().run((context) -> client[0] = context.getBean(RedisLockClient.class));
		assertThatThrownBy(() -> client[0].acquire(LockRequest.builder("x").lease(Duration.ofSeconds(1))
				.interruptible(false).releasedByThread().build()))
			.isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("closed");
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnBeans {

		@Bean
		RedisLockClient myClient(RedisConnectionFactory connectionFactory) {
			return new RedisLockClient(connectionFactory, "own:");
		}

		@Bean
		DistributedLockTemplate myTemplate(LockClient myClient) {
			return new DistributedLockTemplate(myClient, Duration.ofMinutes(1), Duration.ofSeconds(1));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		LockedService lockedService() {
			return new LockedService();
		}

	}

	static class LockedService {

		@DistributedLock(name = "job", key = "#id")
		public boolean whileLocked(java.util.function.BooleanSupplier check, String id) {
			return check.getAsBoolean();
		}

	}

}
