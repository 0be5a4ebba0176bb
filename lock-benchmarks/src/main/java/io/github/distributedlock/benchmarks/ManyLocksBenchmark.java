package io.github.distributedlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.LockDefinition;

/**
 * W7, many held locks (issue 11): one instance (this JVM) holds N auto-renewed locks with a 3 s lease for 60 s,
 * and this measures what holding them costs: the CPU time of the client's threads over the hold (the watchdog's
 * work), the Redis commands per second and Redis's own CPU time over the hold, the heap per held lock (live heap
 * after full collections with the locks held, minus before they were taken, over N), and how fast one thread
 * took them (one blocking acquisition after another). At the end every lock must still be held (none lost) and
 * every release must succeed. Not a JMH benchmark: one measured pass per run, one peer per JVM, on a Redis that
 * {@code run.sh many-locks} starts afresh for each run (this flushes it too).
 * <p>
 * Peers ({@link ManyLocksHolder}): {@code ours}
 * ({@link io.github.distributedlock.core.DistributedLockTemplate#acquire(LockDefinition)}, lease 3 s,
 * auto-renewed) and {@code redisson} ({@code RLock.lock()} with its watchdog, {@code lockWatchdogTimeout} 3 s, so
 * that both renew every second).
 * <p>
 * Arguments: the peer and N. System properties: {@code bench.redis.host}, {@code bench.redis.port},
 * {@code bench.many.seconds} (the hold, 60; shorter for a smoke run), {@code bench.many.report} (a Markdown
 * file the table row is appended to).
 */
public final class ManyLocksBenchmark {

	private ManyLocksBenchmark() {
	}

	/**
	 * Runs W7 once for one peer.
	 * @param args the peer ({@code ours} or {@code redisson}) and the number of locks
	 * @throws Exception if Redis fails or a lock cannot be acquired
	 */
	public static void main(String[] args) throws Exception {
		String peer = args[0];
		int n = Integer.parseInt(args[1]);
		long holdSeconds = Long.getLong("bench.many.seconds", 60);
		try (RedisAdmin admin = RedisAdmin.connect();
				ManyLocksHolder holder = ManyLocksHolder.create(peer, RedisAdmin.host(), RedisAdmin.port(), n)) {
			admin.flushAll();
			String[] keys = new String[n];
			for (int i = 0; i < n; i++) {
				keys[i] = "bench:many:" + i;
			}
			holder.warmUp();
			long heapBefore = usedHeapAfterGc();

			long start = System.nanoTime();
			for (int i = 0; i < n; i++) {
				holder.acquire(i, keys[i]);
			}
			double acquireSeconds = (System.nanoTime() - start) / 1e9;
			System.out.printf(Locale.ROOT, "%s: %,d locks acquired in %.1f s%n", peer, n, acquireSeconds);

			ThreadCpu cpu = ThreadCpu.start();
			long processCpu = ThreadCpu.processCpuNanos();
			admin.resetStats();
			double redisCpu = admin.cpuSeconds();
			long window = System.nanoTime();
			TimeUnit.SECONDS.sleep(holdSeconds);
			CommandStats commands = admin.commandStats();
			redisCpu = admin.cpuSeconds() - redisCpu;
			double windowSeconds = (System.nanoTime() - window) / 1e9;
			processCpu = ThreadCpu.processCpuNanos() - processCpu;
			Map<String, Double> threads = cpu.stop();

			long keysHeld = admin.sync().dbsize();
			int lost = holder.lost();
			long heapHeld = usedHeapAfterGc();
			int failedReleases = 0;
			start = System.nanoTime();
			for (int i = 0; i < n; i++) {
				try {
					holder.release(i);
				}
				catch (RuntimeException ex) {
					if (failedReleases++ == 0) {
						System.out.println("Release failed: " + ex);
					}
				}
			}
			double releaseSeconds = (System.nanoTime() - start) / 1e9;
			long keysLeft = admin.sync().dbsize();

			System.out.println("CPU seconds per thread (name, digits as N) over the " + holdSeconds + " s hold:");
			threads.forEach((name, seconds) -> System.out.printf(Locale.ROOT, "  %-50s %8.3f%n", name, seconds));
			System.out.println("Redis commands over the hold: " + commands.withoutOwn());
			System.out.printf(Locale.ROOT,
					"%s: %,d keys in Redis at the end of the hold, %d lost, %d failed releases (%.1f s), %d keys left%n",
					peer, keysHeld, lost, failedReleases, releaseSeconds, keysLeft);

			double watchdog = ThreadCpu.sum(threads, holder.watchdogThreads());
			double io = ThreadCpu.sum(threads, holder.ioThreads());
			String row = String.format(Locale.ROOT,
					"| %s | %,d | %d | %d | %,.0f | %.2f | %s | %.2f | %,.0f | %,.0f | %.0f %% | %,.0f |", peer, n, lost,
					failedReleases, n / acquireSeconds, watchdog, (holder.ioThreads().length == 0) ? "(in the watchdog's)"
							: String.format(Locale.ROOT, "%.2f", io),
					processCpu / 1e9, commands.total() / windowSeconds, commands.scripts() / windowSeconds,
					100 * redisCpu / windowSeconds, (double) (heapHeld - heapBefore) / n);
			System.out.println(row);
			String report = System.getProperty("bench.many.report");
			if (report != null) {
				Path file = Path.of(report);
				if (!Files.exists(file) || Files.size(file) == 0) {
					Files.writeString(file, header(), StandardCharsets.UTF_8);
				}
				Files.writeString(file, row + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
			}
			if (keysHeld < n) {
				System.out.println("Fewer keys in Redis than locks held: " + keysHeld + " < " + n);
			}
		}
	}

	/** The table's header, written before the first row of a report. */
	static String header() {
		return "| peer | N | lost | failed releases | acquisitions/s | watchdog CPU s | I/O threads CPU s | process CPU s | "
				+ "Redis commands/s | of which script calls/s | Redis CPU | heap bytes per lock |\n"
				+ "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
	}

	/**
	 * The live heap at rest: the heap pools' usage as a full collection left them (their collection usage, not
	 * the usage when read, which also counts what was allocated since), the least of five collections 250 ms
	 * apart. With locks held the watchdog renews them in rounds, and a collection during a round also finds the
	 * round's commands and futures alive (about 400 bytes per lock with 50,000 held): one collection measured the
	 * same code at 573 and 1,288 bytes per lock, depending on when it fell.
	 */
	private static long usedHeapAfterGc() throws InterruptedException {
		long least = Long.MAX_VALUE;
		for (int i = 0; i < 5; i++) {
			System.gc();
			long used = 0;
			for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
				MemoryUsage afterGc = pool.getCollectionUsage();
				if (pool.getType() == MemoryType.HEAP && afterGc != null) {
					used += afterGc.getUsed();
				}
			}
			least = Math.min(least, used);
			TimeUnit.MILLISECONDS.sleep(250);
		}
		return least;
	}

}
