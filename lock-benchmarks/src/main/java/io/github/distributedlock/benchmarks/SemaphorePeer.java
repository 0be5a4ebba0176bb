package io.github.distributedlock.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import org.redisson.api.RPermitExpirableSemaphore;

/**
 * One semaphore library, as one application instance (one client) would use it: a semaphore of {@code permits}
 * on one key, each permit taken with a 30 s lease and given back by the thread that took it.
 */
interface SemaphorePeer extends AutoCloseable {

	/** The peers in the order of the results table. */
	List<String> ALL = List.of("ours", "redisson");

	/** The lease of every permit, for both peers (ours renews it with its watchdog, Redisson's does not). */
	Duration LEASE = Duration.ofSeconds(30);

	/**
	 * Takes one permit, waiting as long as it takes.
	 * @return the permit; closing it gives it back
	 * @throws InterruptedException if the wait was interrupted
	 */
	Permit acquire() throws InterruptedException;

	@Override
	void close();

	/** One permit held; {@link #close()} releases it. */
	interface Permit extends AutoCloseable {

		@Override
		void close();

	}

	/**
	 * Creates a client of the named peer with a semaphore on {@code key}.
	 * @param name {@code ours} or {@code redisson}
	 * @param key the semaphore's key (each peer adds a prefix of its own)
	 * @param permits how many holders at once
	 * @return the peer; close it when done
	 */
	static SemaphorePeer create(String name, String key, int permits) {
		String host = RedisAdmin.host();
		int port = RedisAdmin.port();
		return switch (name) {
			case "ours" -> new Ours(new LockPeer.Ours(host, port), key, permits);
			case "redisson" -> new RedissonPeer(new LockPeer.RedissonPeer(host, port), key, permits);
			default -> throw new IllegalArgumentException("Unknown semaphore peer " + name);
		};
	}

	/**
	 * This library: {@code template.acquire(LockDefinition.builder(key).permits(n))}, a handle per permit, closed
	 * by the thread that took it; the acquire timeout is the template's (30 s).
	 */
	final class Ours implements SemaphorePeer {

		private final LockPeer.Ours peer;

		private final LockDefinition definition;

		Ours(LockPeer.Ours peer, String key, int permits) {
			this.peer = peer;
			this.definition = LockDefinition.builder(key).permits(permits).lease(LEASE).build();
		}

		@Override
		public Permit acquire() {
			LockHandle handle = this.peer.template.acquire(this.definition);
			return handle::close;
		}

		@Override
		public void close() {
			this.peer.close();
		}

	}

	/**
	 * Redisson's {@code RPermitExpirableSemaphore}: {@code trySetPermits(n)} once (a no-op when another client
	 * already set them), {@code acquire(leaseTime)} and {@code release(permitId)}.
	 */
	final class RedissonPeer implements SemaphorePeer {

		private final LockPeer.RedissonPeer peer;

		private final RPermitExpirableSemaphore semaphore;

		RedissonPeer(LockPeer.RedissonPeer peer, String key, int permits) {
			this.peer = peer;
			this.semaphore = peer.redisson.getPermitExpirableSemaphore("redisson:" + key);
			this.semaphore.trySetPermits(permits);
		}

		@Override
		public Permit acquire() throws InterruptedException {
			String id = this.semaphore.acquire(LEASE.toMillis(), TimeUnit.MILLISECONDS);
			return () -> this.semaphore.release(id);
		}

		@Override
		public void close() {
			this.peer.close();
		}

	}

}
