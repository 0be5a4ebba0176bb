package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.aop.DistributedLockAdvisor;
import io.github.distributedlock.aop.DistributedLockInterceptor;
import io.github.distributedlock.aop.LockAnnotationValidator;
import io.github.distributedlock.aop.LockOperationSource;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockClientDecorator;
import io.github.distributedlock.core.LockLostEventPublisher;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import io.github.distributedlock.redis.EvictionCheck;
import io.github.distributedlock.redis.NotificationMode;
import io.github.distributedlock.redis.RedisAccessProbe;
import io.github.distributedlock.redis.RedisLockClient;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of distributed locks on Redis: a {@link RedisLockClient} on the application's
 * {@link RedisConnectionFactory}, a {@link DistributedLockTemplate}, and the advisor that runs
 * {@code @DistributedLock} methods under their lock. At startup every {@code @DistributedLock} is checked
 * (a mistake fails the startup, reported by {@link LockAnnotationFailureAnalyzer}), and one INFO line says how
 * the locks are set up. The client tells every {@link LockObserver} bean what happens to its locks (a
 * {@link LockLostEventPublisher} publishes the losses as events), and the template runs on the client as
 * decorated by every {@link LockClientDecorator} bean, in their order. A Redis user that lacks a permission the
 * locks need fails the startup ({@link RedisAccessProbe}, reported by {@link RedisPermissionFailureAnalyzer}), and
 * so does a Redis that may evict lock keys ({@link EvictionCheck}, reported by {@link EvictingRedisFailureAnalyzer})
 * unless {@code distributed-lock.allow-evicting-redis} is set; Redis unreachable does not. Every bean backs off when the
 * application defines its own; {@code distributed-lock.enabled=false} turns it all off.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass({ RedisConnectionFactory.class, RedisMessageListenerContainer.class })
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistributedLockProperties.class)
public final class DistributedLockAutoConfiguration {

	private static final String LETTUCE_CONNECTION_FACTORY = "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

	/**
	 * Creates the auto-configuration; Spring Boot does, when the conditions above hold.
	 */
	public DistributedLockAutoConfiguration() {
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockClient.class)
	@ConditionalOnBean(RedisConnectionFactory.class)
	@ConditionalOnProperty(name = "distributed-lock.store", havingValue = "redis", matchIfMissing = true)
	RedisLockClient distributedLockClient(RedisConnectionFactory connectionFactory,
			DistributedLockProperties properties, ObjectProvider<LockObserver> observers) {
		checkReplicaSyncClient(connectionFactory, properties);
		NotificationMode notifications = notificationMode(connectionFactory, properties);
		// before the client subscribes: a missing permission or an evicting server fails the startup here, with
		// nothing to close
		new RedisAccessProbe(connectionFactory, properties.getKeyPrefix(), notifications,
				RedisConnectionSummary.of(connectionFactory).target(),
				new EvictionCheck(properties.isAllowEvictingRedis()))
			.check();
		RedisLockClient client = new RedisLockClient(connectionFactory, properties.getKeyPrefix(),
				properties.getSyncReplicas(), properties.getSyncTimeout(), notifications);
		client.setShutdownTimeout(properties.getShutdownTimeout());
		client.setLockObserver(LockObserver.of(observers.orderedStream().toList()));
		return client;
	}

	/**
	 * Resolves {@code distributed-lock.notifications} once, for the permission check and the client; a sharded mode
	 * that cannot run here fails the startup, reported by {@link LockPropertyFailureAnalyzer}.
	 */
	private static NotificationMode notificationMode(RedisConnectionFactory connectionFactory,
			DistributedLockProperties properties) {
		try {
			return properties.getNotifications().resolve(connectionFactory, properties.getKeyPrefix());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockPropertyException("distributed-lock.notifications", "sharded", ex.getMessage(),
					"Use Lettuce (the starter's Redis client) with spring.data.redis.cluster.nodes, or set "
							+ "distributed-lock.notifications to auto or classic.");
		}
	}

	/**
	 * Fails the startup, reported by {@link LockPropertyFailureAnalyzer}, when replica sync is on and the
	 * connection factory is not Lettuce's: its {@code WAIT} needs connections of its own that only Lettuce gives
	 * (with Jedis it would fail in the lock client's constructor, deep in a bean-creation chain). Compared by class
	 * name, so that an application without Lettuce on its classpath does not load Lettuce's factory for this.
	 */
	private static void checkReplicaSyncClient(RedisConnectionFactory connectionFactory,
			DistributedLockProperties properties) {
		if (properties.getSyncReplicas() == 0 || isLettuce(connectionFactory)) {
			return;
		}
		throw new InvalidLockPropertyException("distributed-lock.sync-replicas", properties.getSyncReplicas(),
				"Replica sync (distributed-lock.sync-replicas greater than 0) needs the Lettuce client (a "
						+ "LettuceConnectionFactory), but the application's RedisConnectionFactory is a "
						+ connectionFactory.getClass().getName(),
				"Use Lettuce, the starter's Redis client (remove spring.data.redis.client-type=jedis or set it to "
						+ "lettuce, with io.lettuce:lettuce-core on the classpath), or set distributed-lock.sync-replicas "
						+ "to 0 to turn replica sync off.");
	}

	private static boolean isLettuce(RedisConnectionFactory connectionFactory) {
		for (Class<?> type = connectionFactory.getClass(); type != null; type = type.getSuperclass()) {
			if (LETTUCE_CONNECTION_FACTORY.equals(type.getName())) {
				return true;
			}
		}
		return false;
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(LockClient.class)
	DistributedLockTemplate distributedLockTemplate(LockClient lockClient, DistributedLockProperties properties,
			ObjectProvider<LockClientDecorator> decorators) {
		return LockTemplateFactory.create(lockClient, properties, decorators);
	}

	/**
	 * Publishes a {@code LockLostEvent} when the client learns it lost a lock.
	 */
	@Bean
	@ConditionalOnMissingBean
	LockLostEventPublisher distributedLockLostEventPublisher(ApplicationEventPublisher publisher) {
		return new LockLostEventPublisher(publisher);
	}

	// the local store's configuration, which runs first, registers its own
	@Bean
	@ConditionalOnBean(DistributedLockTemplate.class)
	@ConditionalOnMissingBean(DistributedLockStartupLogger.class)
	DistributedLockStartupLogger distributedLockStartupLogger(DistributedLockTemplate distributedLockTemplate,
			ObjectProvider<LockAnnotationValidator> validator, ObjectProvider<RedisConnectionFactory> connectionFactory,
			ObjectProvider<RedisLockClient> redisClient, Environment environment) {
		return new DistributedLockStartupLogger(distributedLockTemplate, validator,
				new RedisStoreSummary(connectionFactory, redisClient, environment));
	}

	/**
	 * The advisor, its interceptor, and the startup check of every {@code @DistributedLock}, which share one
	 * {@link LockOperationSource}. Advisors are created early, by the auto-proxy creator, so they reach the
	 * template lazily instead of creating the Redis beans with them.
	 */
	@Configuration(proxyBeanMethods = false)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@Import(AutoProxyCreatorRegistrar.class)
	static class DistributedLockAdvisorConfiguration {

		private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
				DistributedLockAdvisorConfiguration.class.getClassLoader());

		/**
		 * Finds the reactive template; a class of its own, loaded only with Reactor on the class path.
		 */
		static final class ReactiveTemplateLookup {

			private ReactiveTemplateLookup() {
			}

			static @Nullable Object find(ListableBeanFactory beanFactory) {
				return beanFactory.getBeanProvider(ReactiveDistributedLockTemplate.class).getIfUnique();
			}

		}

		/**
		 * Fails the startup on an unknown {@code distributed-lock.*} key, before any bean is created; here, so that
		 * the local store's configuration, which imports this one, has it too.
		 */
		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static LockPropertyNamesCheck distributedLockPropertyNamesCheck(ConfigurableEnvironment environment) {
			return new LockPropertyNamesCheck(environment);
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		@ConditionalOnMissingBean
		static LockOperationSource distributedLockOperationSource() {
			return new LockOperationSource();
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		@ConditionalOnMissingBean
		static DistributedLockInterceptor distributedLockInterceptor(ObjectProvider<DistributedLockTemplate> template,
				LockOperationSource distributedLockOperationSource, ListableBeanFactory beanFactory) {
			DistributedLockInterceptor interceptor = new DistributedLockInterceptor(template::getObject,
					distributedLockOperationSource);
			interceptor.setReactiveTemplate(() -> REACTOR_PRESENT ? ReactiveTemplateLookup.find(beanFactory) : null);
			return interceptor;
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		@ConditionalOnMissingBean
		static LockAnnotationValidator distributedLockAnnotationValidator(
				LockOperationSource distributedLockOperationSource) {
			return new LockAnnotationValidator(distributedLockOperationSource);
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		@ConditionalOnMissingBean
		static DistributedLockAdvisor distributedLockAdvisor(DistributedLockInterceptor distributedLockInterceptor,
				Environment environment) {
			// read from the Environment: binding the properties bean this early would skip its post-processing
			int order = environment.getProperty("distributed-lock.advisor-order", Integer.class,
					DistributedLockProperties.DEFAULT_ADVISOR_ORDER);
			return new DistributedLockAdvisor(distributedLockInterceptor, order);
		}

	}

	/**
	 * Makes sure an auto-proxy creator exists (as {@code @EnableTransactionManagement} does), also when
	 * Spring Boot's AOP auto-configuration is switched off; an existing one is kept or upgraded.
	 */
	static class AutoProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata,
				BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
