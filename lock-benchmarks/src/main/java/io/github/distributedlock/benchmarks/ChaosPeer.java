package io.github.distributedlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.LongConsumer;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.redis.RedisLockClient;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * The clients of one lock library in a chaos run ({@link ChaosRunner}), as application instances use it: each
 * client has connections of its own, a 1 s command timeout, and locks with a 2 s lease and a 3 s wait. A call
 * that does not get the lock in time, or fails on Redis, throws.
 */
interface ChaosPeer extends AutoCloseable {

	/** The lease of every lock. */
	Duration LEASE = Duration.ofSeconds(2);

	/** How long a call waits for the lock. */
	Duration WAIT = Duration.ofSeconds(3);

	/** The permits of the {@code ours-semaphore} peer's semaphore. */
	int SEMAPHORE_PERMITS = 3;

	/** The command timeout of every client. */
	Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * Runs {@code body} under the lock of {@code key}, as client number {@code client}.
	 * @param client which client, from 0
	 * @param key the lock key
	 * @param body gets the fencing token of the hold, or -1 where the library has none
	 * @throws RuntimeException if the lock was not acquired in time, or Redis failed
	 */
	void call(int client, String key, LongConsumer body);

	@Override
	void close();

	/**
	 * Creates the clients of a library.
	 * @param name {@code ours}, {@code ours-semaphore} (this library's semaphore of {@link #SEMAPHORE_PERMITS}
	 * permits on the key), {@code redisson}, {@code si-spin} or {@code si-pubsub}
	 * @param clients where each client (application instance) finds Redis, as Spring Data Redis takes it
	 * (standalone or Sentinel; Redisson here only standalone)
	 * @return the peer; close it to close its clients
	 */
	static ChaosPeer create(String name, List<RedisConfiguration> clients) {
		return switch (name) {
			case "ours" -> new Ours(clients, 1);
			case "ours-semaphore" -> new Ours(clients, SEMAPHORE_PERMITS);
			case "redisson" -> new RedissonPeer(clients);
			case "si-spin" -> new SpringIntegration(clients, RedisLockRegistry.RedisLockType.SPIN_LOCK);
			case "si-pubsub" -> new SpringIntegration(clients, RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
			default -> throw new IllegalArgumentException("Unknown chaos peer '" + name
					+ "': expected ours, ours-semaphore, redisson, si-spin or si-pubsub");
		};
	}

	/**
	 * How many holders a peer lets in at once.
	 * @param name a peer's name, as for {@link #create}
	 * @return {@link #SEMAPHORE_PERMITS} for {@code ours-semaphore}, else 1
	 */
	static int permits(String name) {
		return name.equals("ours-semaphore") ? SEMAPHORE_PERMITS : 1;
	}

	/** A started Lettuce connection factory with the 1 s command timeout. */
	static LettuceConnectionFactory factory(RedisConfiguration redis) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(redis,
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * This library: {@code DistributedLockTemplate.execute}, the token of {@code LockContext.current()}; a lock,
	 * or a semaphore with more than one permit.
	 */
	final class Ours implements ChaosPeer {

		private final int permits;

		private final List<LettuceConnectionFactory> factories = new ArrayList<>();

		private final List<RedisLockClient> lockClients = new ArrayList<>();

		private final List<DistributedLockTemplate> templates = new ArrayList<>();

		Ours(List<RedisConfiguration> clients, int permits) {
			this.permits = permits;
			for (RedisConfiguration redis : clients) {
				LettuceConnectionFactory factory = factory(redis);
				RedisLockClient client = new RedisLockClient(factory, "lock:");
				this.factories.add(factory);
				this.lockClients.add(client);
				this.templates.add(new DistributedLockTemplate(client, LEASE, WAIT));
			}
		}

		@Override
		public void call(int client, String key, LongConsumer body) {
			this.templates.get(client).execute(LockDefinition.builder(key).permits(this.permits)
				.lease(LEASE).acquireTimeout(WAIT).build(),
					() -> {
						body.accept(LockContext.current().fencingToken());
						return null;
					});
		}

		@Override
		public void close() {
			this.lockClients.forEach(RedisLockClient::close);
			this.factories.forEach(LettuceConnectionFactory::destroy);
		}

	}

	/** Redisson's {@code RLock}: {@code tryLock(3 s wait, 2 s lease)}; Redisson has no fencing token. */
	final class RedissonPeer implements ChaosPeer {

		private final List<RedissonClient> clients = new ArrayList<>();

		RedissonPeer(List<RedisConfiguration> clients) {
			for (RedisConfiguration redis : clients) {
				if (!(redis instanceof RedisStandaloneConfiguration standalone)) {
					throw new IllegalArgumentException("The chaos run's Redisson peer takes a standalone Redis only");
				}
				Config config = new Config();
				config.setNettyThreads(4);
				config.useSingleServer()
					.setAddress("redis://" + standalone.getHostName() + ":" + standalone.getPort())
					.setTimeout((int) COMMAND_TIMEOUT.toMillis())
					.setConnectionMinimumIdleSize(4);
				this.clients.add(Redisson.create(config));
			}
		}

		@Override
		public void call(int client, String key, LongConsumer body) {
			RLock lock = this.clients.get(client).getLock("redisson:" + key);
			ChaosPeer.callLocked(lock, () -> lock.tryLock(WAIT.toMillis(), LEASE.toMillis(), TimeUnit.MILLISECONDS),
					key, body);
		}

		@Override
		public void close() {
			this.clients.forEach(RedissonClient::shutdown);
		}

	}

	/** Spring Integration's {@code RedisLockRegistry} (lease = its {@code expireAfter}); no fencing token. */
	final class SpringIntegration implements ChaosPeer {

		private final List<LettuceConnectionFactory> factories = new ArrayList<>();

		private final List<RedisLockRegistry> registries = new ArrayList<>();

		SpringIntegration(List<RedisConfiguration> clients, RedisLockRegistry.RedisLockType type) {
			for (RedisConfiguration redis : clients) {
				LettuceConnectionFactory factory = factory(redis);
				RedisLockRegistry registry = new RedisLockRegistry(factory, "si:" + type, LEASE);
				registry.setRedisLockType(type);
				this.factories.add(factory);
				this.registries.add(registry);
			}
		}

		@Override
		public void call(int client, String key, LongConsumer body) {
			Lock lock = this.registries.get(client).obtain(key);
			ChaosPeer.callLocked(lock, () -> lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS), key, body);
		}

		@Override
		public void close() {
			this.registries.forEach(RedisLockRegistry::destroy);
			this.factories.forEach(LettuceConnectionFactory::destroy);
		}

	}

	/** A {@code tryLock} that may be interrupted. */
	@FunctionalInterface
	interface TryLock {

		boolean tryLock() throws InterruptedException;

	}

	/**
	 * Runs {@code body} (with token -1) under a {@link Lock} taken with {@code tryLock}, and unlocks it.
	 * @throws IllegalStateException if the lock was not acquired in time, or the wait was interrupted
	 */
	static void callLocked(Lock lock, TryLock tryLock, String key, LongConsumer body) {
		boolean acquired;
		try {
			acquired = tryLock.tryLock();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for lock '" + key + "'", ex);
		}
		if (!acquired) {
			throw new IllegalStateException("Lock '" + key + "' not acquired within " + WAIT.toMillis() + " ms");
		}
		try {
			body.accept(-1);
		}
		finally {
			lock.unlock();
		}
	}

}
