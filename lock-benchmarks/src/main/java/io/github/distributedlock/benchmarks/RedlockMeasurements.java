package io.github.distributedlock.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;

/**
 * The three measurements of {@link RedlockBenchmark}, each on peers it is given, timed with
 * {@link System#nanoTime()} outside JMH (N server processes per run do not fit JMH's forks): uncontended
 * lock+unlock pairs with their latency, one key contended by several threads of two clients, and the Redis
 * commands per uncontended pair on each node. Each measurement first runs as long again unmeasured, as warm-up.
 * Stateless.
 */
final class RedlockMeasurements {

	/** How long a contended {@code tryLock} waits before it counts as failed. */
	static final long CONTENDED_WAIT_SECONDS = 5;

	private RedlockMeasurements() {
	}

	/**
	 * Uncontended pairs: one thread locks and unlocks one key of its own, again and again.
	 * @param peer the client
	 * @param key the key
	 * @param warmUpNanos how long to run unmeasured first
	 * @param measureNanos how long to measure
	 * @return pairs per second, and the latency of a pair at the median and the 99th percentile in microseconds
	 */
	static Uncontended uncontended(RedlockPeer peer, String key, long warmUpNanos, long measureNanos) {
		Lock lock = peer.lock(key);
		pairsFor(lock, warmUpNanos, new long[0]);
		long[] latencies = new long[1 << 20];
		long started = System.nanoTime();
		int pairs = pairsFor(lock, measureNanos, latencies);
		double seconds = (System.nanoTime() - started) / 1e9;
		long[] sorted = Arrays.copyOf(latencies, Math.min(pairs, latencies.length));
		Arrays.sort(sorted);
		return new Uncontended(pairs / seconds, percentile(sorted, 0.50) / 1e3, percentile(sorted, 0.99) / 1e3);
	}

	/** Runs pairs until {@code nanos} passed; records each pair's nanoseconds while {@code latencies} has room. */
	private static int pairsFor(Lock lock, long nanos, long[] latencies) {
		long end = System.nanoTime() + nanos;
		int pairs = 0;
		long now = System.nanoTime();
		while (now - end < 0) {
			lock.lock();
			lock.unlock();
			long after = System.nanoTime();
			if (pairs < latencies.length) {
				latencies[pairs] = after - now;
			}
			pairs++;
			now = after;
		}
		return pairs;
	}

	private static double percentile(long[] sorted, double fraction) {
		return (sorted.length == 0) ? Double.NaN : sorted[(int) Math.min(sorted.length - 1, (long) (fraction * sorted.length))];
	}

	/**
	 * One key contended: {@code threadsPerClient} threads on each of the two clients {@code tryLock} it (waiting
	 * up to {@value #CONTENDED_WAIT_SECONDS} s) and unlock it at once, until the time is up.
	 * @param clients two clients of one peer (two application instances)
	 * @param key the key
	 * @param threadsPerClient threads per client
	 * @param warmUpNanos how long to run unmeasured first
	 * @param measureNanos how long to measure
	 * @return acquisitions per second over all threads, and the {@code tryLock}s that timed out
	 * @throws InterruptedException if interrupted while waiting for the threads
	 */
	static Contended contended(List<RedlockPeer> clients, String key, int threadsPerClient, long warmUpNanos,
			long measureNanos) throws InterruptedException {
		run(clients, key, threadsPerClient, warmUpNanos, new LongAdder(), new LongAdder());
		LongAdder acquired = new LongAdder();
		LongAdder failed = new LongAdder();
		long started = System.nanoTime();
		run(clients, key, threadsPerClient, measureNanos, acquired, failed);
		double seconds = (System.nanoTime() - started) / 1e9;
		return new Contended(acquired.sum() / seconds, failed.sum());
	}

	private static void run(List<RedlockPeer> clients, String key, int threadsPerClient, long nanos,
			LongAdder acquired, LongAdder failed) throws InterruptedException {
		long end = System.nanoTime() + nanos;
		List<Thread> threads = new ArrayList<>();
		for (RedlockPeer client : clients) {
			for (int t = 0; t < threadsPerClient; t++) {
				Lock lock = client.lock(key);
				Thread thread = new Thread(() -> {
					while (System.nanoTime() - end < 0) {
						try {
							if (lock.tryLock(CONTENDED_WAIT_SECONDS, TimeUnit.SECONDS)) {
								lock.unlock();
								acquired.increment();
							}
							else {
								failed.increment();
							}
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
							return;
						}
						catch (RuntimeException ex) {
							failed.increment();
						}
					}
				}, "redlock-contended-" + threads.size());
				thread.start();
				threads.add(thread);
			}
		}
		for (Thread thread : threads) {
			thread.join();
		}
	}

	/**
	 * Counts the Redis commands of {@code pairs} uncontended lock+unlock pairs of one thread on every node,
	 * after one pair that opens the connections and loads the scripts.
	 * @param peer the client
	 * @param nodes the nodes, whose counts are reset first
	 * @param key the key
	 * @param pairs how many pairs to count
	 * @return the counts per node
	 */
	static List<CommandStats> commands(RedlockPeer peer, RedlockNodes nodes, String key, int pairs) {
		Lock lock = peer.lock(key);
		lock.lock();
		lock.unlock();
		nodes.settledStats();
		nodes.resetStats();
		for (int i = 0; i < pairs; i++) {
			lock.lock();
			lock.unlock();
		}
		return nodes.settledStats();
	}

	/**
	 * What an uncontended run measured.
	 * @param pairsPerSecond lock+unlock pairs per second
	 * @param p50Micros the median latency of a pair, microseconds
	 * @param p99Micros the 99th percentile latency of a pair, microseconds
	 */
	record Uncontended(double pairsPerSecond, double p50Micros, double p99Micros) {
	}

	/**
	 * What a contended run measured.
	 * @param acquisitionsPerSecond acquisitions (each released at once) per second, all threads together
	 * @param timedOut {@code tryLock}s that did not get the lock in time, or failed
	 */
	record Contended(double acquisitionsPerSecond, long timedOut) {
	}

}
