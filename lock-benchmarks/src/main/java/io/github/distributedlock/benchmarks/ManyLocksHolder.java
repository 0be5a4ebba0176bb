package io.github.distributedlock.benchmarks;

import java.time.Duration;

/**
 * One peer of W7 ({@link ManyLocksBenchmark}) holding the many locks, all taken and released by the main thread:
 * {@link OursHolder} or {@link RedissonHolder}. Not thread-safe.
 */
interface ManyLocksHolder extends AutoCloseable {

	/** The lease of every held lock, renewed by the peer's watchdog (a third of it after the last renewal). */
	Duration LEASE = Duration.ofSeconds(3);

	/** The locks the warm-up takes and releases. */
	int WARM_UP_LOCKS = 500;

	/**
	 * Creates the named peer's holder on the Redis under test.
	 * @param peer {@code ours}, {@code redisson} or {@code redisson-after-churn} (see {@link RedissonHolder})
	 * @param host the Redis host
	 * @param port the Redis port
	 * @param n how many locks it will hold
	 * @return the holder; close it when done
	 * @throws IllegalArgumentException for another peer
	 */
	static ManyLocksHolder create(String peer, String host, int port, int n) {
		return switch (peer) {
			case "ours" -> new OursHolder(host, port, n);
			case "redisson" -> new RedissonHolder(host, port, n, false);
			case "redisson-after-churn" -> new RedissonHolder(host, port, n, true);
			default -> throw new IllegalArgumentException("Unknown peer " + peer);
		};
	}

	/** Takes and releases a few locks of other keys, so that connections and classes exist before. */
	void warmUp();

	/**
	 * Takes one lock, waiting as long as it takes, and holds it (auto-renewed) until {@link #release(int)}.
	 * @param index the lock's index, 0 to n - 1
	 * @param key the lock's key
	 */
	void acquire(int index, String key);

	/**
	 * The held locks that are lost (ours: as the client knows; Redisson: not held in Redis).
	 * @return how many
	 * @throws Exception if Redis fails
	 */
	int lost() throws Exception;

	/**
	 * Releases one lock; throws if it was lost or could not be released.
	 * @param index the lock's index
	 */
	void release(int index);

	/**
	 * The threads whose CPU time is the watchdog's.
	 * @return name prefixes (digits as N)
	 */
	String[] watchdogThreads();

	/**
	 * The threads that do the client's network I/O, when they are not the watchdog's.
	 * @return name prefixes, none when the watchdog's threads do it
	 */
	String[] ioThreads();

	@Override
	void close();

}
