package io.github.distributedlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;

import io.github.distributedlock.autoconfigure.DistributedLockProperties;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.redlock.RedlockLockClient;
import io.github.distributedlock.redlock.RedlockSettings;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * One Redlock library over the N nodes of a {@link RedlockBenchmark}, as one application instance uses it: a
 * {@link Lock} per key, taken with {@code lock()} or {@code tryLock(time, unit)} and released with
 * {@code unlock()}, each hold renewed by the library's watchdog. Thread-safe as the libraries are.
 */
interface RedlockPeer extends AutoCloseable {

	/** The peers, in the order of the report's columns. */
	List<String> ALL = List.of("ours", "redisson");

	/**
	 * Returns the lock of a key.
	 * @param key the key, without prefix
	 * @return the lock; its holds belong to the calling thread
	 */
	Lock lock(String key);

	@Override
	void close();

	/**
	 * Creates a peer.
	 * @param name {@code ours} (this library, {@code store=redlock}) or {@code redisson} ({@code RedissonRedLock})
	 * @param urls the nodes, {@code redis://host:port}
	 * @return the peer; close it to close its clients
	 */
	static RedlockPeer create(String name, List<String> urls) {
		return switch (name) {
			case "ours" -> new Ours(urls);
			case "redisson" -> new RedissonPeer(urls);
			default -> throw new IllegalArgumentException("Unknown Redlock peer '" + name + "': expected ours or redisson");
		};
	}

	/**
	 * Builds this library's Redlock client as {@code RedlockAutoConfiguration} does for
	 * {@code distributed-lock.store=redlock} with only {@code distributed-lock.redlock.nodes} set: the default
	 * node timeout, drift factor, retry delay, minimum validity and key prefix of the properties, and the
	 * startup check of the nodes.
	 * @param urls the nodes
	 * @return the checked client; close it when done
	 * @throws IllegalStateException if the nodes are not independent primaries
	 */
	static RedlockLockClient oursClient(List<String> urls) {
		DistributedLockProperties properties = new DistributedLockProperties();
		DistributedLockProperties.Redlock redlock = properties.getRedlock();
		RedlockLockClient client = new RedlockLockClient(new RedlockSettings(urls, redlock.getNodeTimeout(),
				redlock.getDriftFactor(), redlock.getRetryDelay(), redlock.getMinValidity(), properties.getKeyPrefix()));
		try {
			client.checkNodes();
		}
		catch (RuntimeException ex) {
			client.close();
			throw ex;
		}
		return client;
	}

	/** This library: {@code DistributedLockTemplate.getLock} over the Redlock client (30 s renewed lease). */
	final class Ours implements RedlockPeer {

		private final RedlockLockClient client;

		private final DistributedLockTemplate template;

		Ours(List<String> urls) {
			this.client = oursClient(urls);
			this.template = new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ofSeconds(30));
		}

		@Override
		public Lock lock(String key) {
			return this.template.getLock(key);
		}

		@Override
		public void close() {
			this.client.close();
		}

	}

	/**
	 * Redisson's {@code RedissonRedLock} (deprecated since 3.12.5, still shipped) over one {@code RLock} per node,
	 * each from a {@code RedissonClient} of its own on that node, with Redisson's watchdog (no lease given).
	 */
	final class RedissonPeer implements RedlockPeer {

		private final List<RedissonClient> clients = new ArrayList<>();

		RedissonPeer(List<String> urls) {
			try {
				for (String url : urls) {
					Config config = new Config();
					config.setNettyThreads(4);
					config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(4);
					this.clients.add(Redisson.create(config));
				}
			}
			catch (RuntimeException ex) {
				close();
				throw ex;
			}
		}

		@Override
		@SuppressWarnings("deprecation")
		public Lock lock(String key) {
			RLock[] locks = this.clients.stream().map((client) -> client.getLock("redisson:" + key)).toArray(RLock[]::new);
			return new RedissonRedLock(locks);
		}

		@Override
		public void close() {
			this.clients.forEach(LockPeer.RedissonPeer::shutdown);
		}

	}

}
