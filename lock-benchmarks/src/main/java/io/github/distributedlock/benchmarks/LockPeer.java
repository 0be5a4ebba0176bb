package io.github.distributedlock.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.redis.RedisLockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * One lock library, as one application instance (one client) would use it.
 */
interface LockPeer extends AutoCloseable {

	/** The peers in the order of the results table. */
	List<String> ALL = List.of("ours", "redisson", "si-spin", "si-pubsub", "floor");

	Lock lock(String key);

	default ReadWriteLock readWriteLock(String key) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " has no read/write lock");
	}

	@Override
	void close();

	static LockPeer create(String name) {
		String host = RedisAdmin.host();
		int port = RedisAdmin.port();
		if (name.startsWith("ours-scripts@")) {
			return ScriptPeer.ours(host, port, Path.of(name.substring("ours-scripts@".length())));
		}
		return switch (name) {
			case "ours" -> new Ours(host, port);
			case "redisson" -> new RedissonPeer(host, port);
			case "si-spin" -> new SpringIntegration(host, port, RedisLockRegistry.RedisLockType.SPIN_LOCK);
			case "si-pubsub" -> new SpringIntegration(host, port, RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
			case "floor" -> new Floor(host, port);
			case "ours-scripts" -> ScriptPeer.ours(host, port);
			case "string-scripts" -> ScriptPeer.stringPrototype(host, port);
			case "token-floor" -> ScriptPeer.tokenFloor(host, port);
			default -> throw new IllegalArgumentException("Unknown peer " + name);
		};
	}

	static LettuceConnectionFactory connectionFactory(String host, int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** This library: the template's {@code Lock} and {@code ReadWriteLock} views, with the default lease. */
	final class Ours implements LockPeer {

		final LettuceConnectionFactory factory;

		final RedisLockClient client;

		final DistributedLockTemplate template;

		Ours(String host, int port) {
			this.factory = connectionFactory(host, port);
			this.client = new RedisLockClient(this.factory, "lock:");
			this.template = new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ofSeconds(30));
		}

		@Override
		public Lock lock(String key) {
			return this.template.getLock(key);
		}

		@Override
		public ReadWriteLock readWriteLock(String key) {
			return this.template.getReadWriteLock(key);
		}

		@Override
		public void close() {
			this.client.close();
			this.factory.destroy();
		}

	}

	/** Redisson's {@code RLock} and {@code RReadWriteLock}, with its watchdog (no lease given). */
	final class RedissonPeer implements LockPeer {

		final RedissonClient redisson;

		RedissonPeer(String host, int port) {
			this.redisson = Redisson.create(config(host, port));
		}

		/** The configuration of every Redisson client of the benchmarks: 4 Netty threads, 4 idle connections. */
		static Config config(String host, int port) {
			Config config = new Config();
			config.setNettyThreads(4);
			config.useSingleServer().setAddress("redis://" + host + ":" + port).setConnectionMinimumIdleSize(4);
			return config;
		}

		@Override
		public Lock lock(String key) {
			return this.redisson.getLock("redisson:" + key);
		}

		@Override
		public ReadWriteLock readWriteLock(String key) {
			return this.redisson.getReadWriteLock("redisson:" + key);
		}

		@Override
		public void close() {
			shutdown(this.redisson);
		}

		/**
		 * Shuts a client down without Netty's quiet period: {@code shutdown()} waits until no task came for 2 s,
		 * which every benchmark fork and every Redlock measurement paid after its measurement, for nothing.
		 * @param redisson the client
		 */
		static void shutdown(RedissonClient redisson) {
			redisson.shutdown(0, 15, TimeUnit.SECONDS);
		}

	}

	/** Spring Integration's {@code RedisLockRegistry} in one of its two modes. */
	final class SpringIntegration implements LockPeer {

		final LettuceConnectionFactory factory;

		final RedisLockRegistry registry;

		SpringIntegration(String host, int port, RedisLockRegistry.RedisLockType type) {
			this.factory = connectionFactory(host, port);
			this.registry = new RedisLockRegistry(this.factory, "si:" + type, Duration.ofSeconds(30));
			this.registry.setRedisLockType(type);
		}

		@Override
		public Lock lock(String key) {
			return this.registry.obtain(key);
		}

		@Override
		public void close() {
			this.registry.destroy();
			this.factory.destroy();
		}

	}

	/**
	 * The floor: raw Lettuce, one EVALSHA to acquire ({@code SET NX PX}) and one to release
	 * (compare-and-delete). Not reentrant; a blocked {@code lock()} retries every 50 microseconds.
	 */
	final class Floor implements LockPeer {

		static final String ACQUIRE = "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 else return 0 end";

		static final String RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

		final RedisClient client;

		final StatefulRedisConnection<String, String> connection;

		final String acquireSha;

		final String releaseSha;

		final String clientId = UUID.randomUUID().toString();

		Floor(String host, int port) {
			this.client = RedisClient.create(RedisURI.create(host, port));
			this.connection = this.client.connect();
			this.acquireSha = this.connection.sync().scriptLoad(ACQUIRE);
			this.releaseSha = this.connection.sync().scriptLoad(RELEASE);
		}

		@Override
		public Lock lock(String key) {
			String[] keys = { "floor:" + key };
			RedisCommands<String, String> redis = this.connection.sync();
			return new BasicLock() {

				@Override
				public boolean tryLock() {
					Long acquired = redis.evalsha(Floor.this.acquireSha, ScriptOutputType.INTEGER, keys, owner(), "30000");
					return acquired == 1L;
				}

				@Override
				public void lock() {
					while (!tryLock()) {
						LockSupport.parkNanos(50_000);
					}
				}

				@Override
				public void unlock() {
					redis.evalsha(Floor.this.releaseSha, ScriptOutputType.INTEGER, keys, owner());
				}

			};
		}

		private String owner() {
			return this.clientId + ":" + Thread.currentThread().getId();
		}

		@Override
		public void close() {
			this.connection.close();
			this.client.shutdown();
		}

	}

}
