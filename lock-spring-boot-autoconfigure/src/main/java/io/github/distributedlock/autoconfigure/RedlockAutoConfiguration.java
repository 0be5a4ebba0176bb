package io.github.distributedlock.autoconfigure;

import java.util.List;

import io.github.distributedlock.aop.LockAnnotationValidator;
import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration.DistributedLockAdvisorConfiguration;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockClientDecorator;
import io.github.distributedlock.core.LockLostEventPublisher;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.redis.EvictionCheck;
import io.github.distributedlock.redlock.RedlockLockClient;
import io.github.distributedlock.redlock.RedlockSettings;
import io.github.distributedlock.redlock.RedlockVoteObserver;
import io.lettuce.core.SslOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of the Redlock store, with {@code distributed-lock.store=redlock}: a
 * {@link RedlockLockClient} over the independent Redis primaries of {@code distributed-lock.redlock.nodes}, each
 * checked at startup (one server twice, replicas and Cluster members are refused, with a failure report naming
 * the node; so are a user that lacks a permission the store needs and a node that may evict lock keys, unless
 * {@code distributed-lock.allow-evicting-redis} is set), the {@link DistributedLockTemplate} and the {@code @DistributedLock} advisor. Its {@code rediss://}
 * nodes are connected with the Spring Boot SSL bundle named by {@code distributed-lock.redlock.ssl-bundle} when
 * set (read once at startup; an unknown name fails the startup naming that property). Its per-node vote
 * meters ({@link RedlockVoteObserver} beans) come from {@link DistributedLockMetricsAutoConfiguration}. Needs Lettuce
 * ({@code io.lettuce:lettuce-core}) on the classpath, and says so at startup when it is missing; needs no
 * {@code RedisConnectionFactory}. Runs before {@link DistributedLockAutoConfiguration}, whose Redis client then
 * backs off; every bean backs off when the application defines its own.
 */
@AutoConfiguration(before = DistributedLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "distributed-lock.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "distributed-lock.store", havingValue = "redlock")
@EnableConfigurationProperties(DistributedLockProperties.class)
@Import(DistributedLockAdvisorConfiguration.class)
public final class RedlockAutoConfiguration {

	private static final String NODES = "distributed-lock.redlock.nodes";

	private static final String SSL_BUNDLE = "distributed-lock.redlock.ssl-bundle";

	/**
	 * Creates the auto-configuration; Spring Boot does, when the conditions above hold.
	 */
	public RedlockAutoConfiguration() {
	}

	// typed as the Redlock client, so that its Actuator support (@ConditionalOnBean) sees it before it is made
	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LockClient.class)
	RedlockLockClient distributedLockClient(DistributedLockProperties properties, ObjectProvider<LockObserver> observers,
			ObjectProvider<RedlockVoteObserver> voteObservers, ObjectProvider<SslBundles> sslBundles,
			ResourceLoader resources) {
		if (!ClassUtils.isPresent("io.lettuce.core.RedisClient", resources.getClassLoader())) {
			throw new InvalidLockPropertyException("distributed-lock.store", "redlock",
					"The Redlock store reaches its nodes with Lettuce, which is not on the classpath.",
					"Add io.lettuce:lettuce-core to the application's dependencies, or choose another "
							+ "distributed-lock.store.");
		}
		DistributedLockProperties.Redlock redlock = properties.getRedlock();
		List<String> nodes = redlock.getNodes();
		if (nodes.size() < 3) {
			throw new InvalidLockPropertyException(NODES, nodes,
					"Redlock needs at least 3 independent Redis primaries (the quorum is N/2 + 1 of them), "
							+ nodes.size() + " given.",
					"List 3 or more redis:// or rediss:// URLs (an odd number) in " + NODES + ".");
		}
		RedlockSettings settings;
		try {
			settings = new RedlockSettings(nodes, redlock.getNodeTimeout(), redlock.getDriftFactor(),
					redlock.getRetryDelay(), redlock.getMinValidity(), properties.getKeyPrefix());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockPropertyException("distributed-lock.redlock", "(see the message)", ex.getMessage(),
					"Set positive durations and a drift-factor in [0, 0.5) under distributed-lock.redlock.");
		}
		RedlockLockClient client = RedlockClients.create(settings, sslBundle(redlock.getSslBundle(), sslBundles),
				properties.isAllowEvictingRedis(), observers, voteObservers);
		client.setShutdownTimeout(properties.getShutdownTimeout());
		return client;
	}

	private static @Nullable SslBundle sslBundle(@Nullable String name, ObjectProvider<SslBundles> sslBundles) {
		if (name == null || name.isBlank()) {
			return null;
		}
		SslBundles bundles = sslBundles.getIfAvailable();
		if (bundles == null) {
			throw new InvalidLockPropertyException(SSL_BUNDLE, name,
					"The application has no SSL bundles (no SslBundles bean), so the bundle '" + name
							+ "' cannot be found.",
					"Keep Spring Boot's SslAutoConfiguration on, with the bundle under spring.ssl.bundle.*.");
		}
		try {
			return bundles.getBundle(name);
		}
		catch (NoSuchSslBundleException ex) {
			throw new InvalidLockPropertyException(SSL_BUNDLE, name,
					"No SSL bundle named '" + name + "' is configured; the bundles are " + bundles.getBundleNames()
							+ ".",
					"Configure the bundle under spring.ssl.bundle.pem." + name + " or spring.ssl.bundle.jks." + name
							+ ", or set " + SSL_BUNDLE + " to the name of one that exists.");
		}
	}

	// also here, not only in DistributedLockAutoConfiguration: that one is off without Spring Data Redis
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

	/**
	 * Logs the startup line, naming the nodes and the quorum (see {@link RedlockStoreSummary}); also here, not
	 * only in {@link DistributedLockAutoConfiguration}: that one is off without Spring Data Redis, and would not
	 * know the nodes.
	 */
	@Bean
	@ConditionalOnBean(DistributedLockTemplate.class)
	@ConditionalOnMissingBean(DistributedLockStartupLogger.class)
	DistributedLockStartupLogger distributedLockStartupLogger(DistributedLockTemplate distributedLockTemplate,
			ObjectProvider<LockAnnotationValidator> validator, DistributedLockProperties properties,
			ObjectProvider<LockClient> client) {
		return new DistributedLockStartupLogger(distributedLockTemplate, validator,
				new RedlockStoreSummary(properties, client));
	}

	/**
	 * Creates the client, in a class of its own so that the configuration loads without Lettuce.
	 */
	private static final class RedlockClients {

		static RedlockLockClient create(RedlockSettings settings, @Nullable SslBundle sslBundle, boolean allowEvicting,
				ObjectProvider<LockObserver> observers, ObjectProvider<RedlockVoteObserver> voteObservers) {
			RedlockLockClient client;
			try {
				client = new RedlockLockClient(settings, (sslBundle != null) ? sslOptions(sslBundle) : null);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidLockPropertyException(NODES, "(see the message)", ex.getMessage(),
						"Give each node as redis://[user:password@]host:port or rediss://...");
			}
			try {
				client.checkNodes(new EvictionCheck(allowEvicting));
			}
			catch (IllegalStateException ex) {
				client.close();
				throw new InvalidLockPropertyException(NODES, "(see the message)", ex.getMessage(),
						"List only independent Redis primaries, each once, in " + NODES + ".");
			}
			catch (RuntimeException ex) {
				// a node's user lacks a permission, or a node may evict lock keys: reported by their analyzers
				client.close();
				throw ex;
			}
			client.setLockObserver(LockObserver.of(observers.orderedStream().toList()));
			client.setVoteObserver(RedlockVoteObserver.of(voteObservers.orderedStream().toList()));
			return client;
		}

		// the bundle's trust and key managers as Lettuce's, with its protocols and ciphers when it names any
		private static SslOptions sslOptions(SslBundle bundle) {
			SslOptions.Builder options = SslOptions.builder()
				.trustManager(bundle.getManagers().getTrustManagerFactory())
				.keyManager(bundle.getManagers().getKeyManagerFactory());
			String[] protocols = bundle.getOptions().getEnabledProtocols();
			if (protocols != null) {
				options.protocols(protocols);
			}
			String[] ciphers = bundle.getOptions().getCiphers();
			if (ciphers != null) {
				options.cipherSuites(ciphers);
			}
			return options.build();
		}

	}

}
