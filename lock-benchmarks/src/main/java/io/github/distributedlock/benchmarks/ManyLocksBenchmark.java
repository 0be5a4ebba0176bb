package io.github.distributedlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * W7, many held locks (issue 11): one instance (this JVM) holds N auto-renewed locks with a 3 s lease for 60 s,
 * and this measures what holding them costs: the CPU time of the client's threads over the hold (the watchdog's
 * work), the Redis commands per second and Redis's own CPU time over the hold, the heap per held lock (used heap
 * after {@link System#gc()} with the locks held, minus before they were taken, over N), and how fast one thread
 * took them (one blocking acquisition after another). At the end every lock must still be held (none lost) and
 * every release must succeed. Not a JMH benchmark: one measured pass per run, one peer per JVM, on a Redis that
 * {@code run.sh many-locks} starts afresh for each run (this flushes it too).
 * <p>
 * Peers: {@code ours} ({@link io.github.distributedlock.core.DistributedLockTemplate#acquire(LockDefinition)},
 * lease 3 s, auto-renewed) and {@code redisson} ({@code RLock.lock()} with its watchdog,
 * {@code lockWatchdogTimeout} 3 s, so that both renew every second).
 * <p>
 * Arguments: the peer and N. System properties: {@code bench.redis.host}, {@code bench.redis.port},
 * {@code bench.many.seconds} (the hold, 60; shorter for a smoke run), {@code bench.many.report} (a Markdown
 * file the table row is appended to).
 */
public final class ManyLocksBenchmark {

	static final Duration LEASE = Duration.ofSeconds(3);

	private static final int WARM_UP_LOCKS = 500;

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
		String host = System.getProperty("bench.redis.host", "127.0.0.1");
		int port = Integer.getInteger("bench.redis.port", 6379);
		RedisClient redis = RedisClient.create(RedisURI.create(host, port));
		try (StatefulRedisConnection<String, String> connection = redis.connect();
				Holder holder = holder(peer, host, port, n)) {
			RedisCommands<String, String> admin = connection.sync();
			admin.flushall();
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
			admin.configResetstat();
			double redisCpu = redisCpuSeconds(admin);
			long window = System.nanoTime();
			TimeUnit.SECONDS.sleep(holdSeconds);
			Commands commands = Commands.of(admin.info("commandstats"));
			redisCpu = redisCpuSeconds(admin) - redisCpu;
			double windowSeconds = (System.nanoTime() - window) / 1e9;
			processCpu = ThreadCpu.processCpuNanos() - processCpu;
			Map<String, Double> threads = cpu.stop();

			long keysHeld = admin.dbsize();
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
			long keysLeft = admin.dbsize();

			System.out.println("CPU seconds per thread (name, digits as N) over the " + holdSeconds + " s hold:");
			threads.forEach((name, seconds) -> System.out.printf(Locale.ROOT, "  %-50s %8.3f%n", name, seconds));
			System.out.println("Redis commands over the hold: " + commands.calls());
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
		finally {
			redis.shutdown();
		}
	}

	private static Holder holder(String peer, String host, int port, int n) {
		return switch (peer) {
			case "ours" -> new Ours(host, port, n);
			case "redisson" -> new RedissonHolder(host, port, n, false);
			case "redisson-after-churn" -> new RedissonHolder(host, port, n, true);
			default -> throw new IllegalArgumentException("Unknown peer " + peer);
		};
	}

	static String header() {
		return "| peer | N | lost | failed releases | acquisitions/s | watchdog CPU s | I/O threads CPU s | process CPU s | "
				+ "Redis commands/s | of which script calls/s | Redis CPU | heap bytes per lock |\n"
				+ "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
	}

	private static long usedHeapAfterGc() throws InterruptedException {
		for (int i = 0; i < 3; i++) {
			System.gc();
			TimeUnit.MILLISECONDS.sleep(200);
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

	private static double redisCpuSeconds(RedisCommands<String, String> admin) {
		double seconds = 0;
		for (String line : admin.info("cpu").split("\r?\n")) {
			if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
				seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1));
			}
		}
		return seconds;
	}

	/** {@code INFO commandstats} since the last reset: calls per command, without the benchmark's own. */
	record Commands(Map<String, Long> calls) {

		static Commands of(String commandstats) {
			Map<String, Long> calls = new java.util.TreeMap<>();
			for (String line : commandstats.split("\r?\n")) {
				if (!line.startsWith("cmdstat_")) {
					continue;
				}
				String command = line.substring("cmdstat_".length(), line.indexOf(':'));
				if (!command.equals("info") && !command.startsWith("config")) {
					calls.put(command, Long.parseLong(line.replaceAll("^[^:]+:calls=(\\d+),.*$", "$1")));
				}
			}
			return new Commands(calls);
		}

		/** Every command Redis ran: the client's requests and the commands inside scripts. */
		long total() {
			return this.calls.values().stream().mapToLong(Long::longValue).sum();
		}

		/** The script calls (EVAL, EVALSHA, FCALL) among them. */
		long scripts() {
			return this.calls.entrySet()
				.stream()
				.filter((entry) -> entry.getKey().startsWith("eval") || entry.getKey().startsWith("fcall"))
				.mapToLong(Map.Entry::getValue)
				.sum();
		}

	}

	/** One peer holding the locks, all taken and released by the main thread. */
	interface Holder extends AutoCloseable {

		/** Takes and releases a few locks of other keys, so that connections and classes exist before. */
		void warmUp();

		void acquire(int index, String key);

		/** The held locks that are lost (ours: as the client knows; Redisson: not held in Redis). */
		int lost() throws Exception;

		/** Releases one lock; throws if it was lost or could not be released. */
		void release(int index);

		/** Name prefixes (digits as N) of the threads whose CPU time is the watchdog's. */
		String[] watchdogThreads();

		/** Name prefixes of the threads that do the client's network I/O, when they are not the watchdog's. */
		String[] ioThreads();

		@Override
		void close();

	}

	/** This library: one thread's blocking acquisitions, each a hold with a 3 s auto-renewed lease. */
	static final class Ours implements Holder {

		private final LockPeer.Ours peer;

		private final LockHandle[] handles;

		Ours(String host, int port, int n) {
			this.peer = new LockPeer.Ours(host, port);
			this.handles = new LockHandle[n];
		}

		private static LockDefinition definition(String key) {
			return LockDefinition.builder(key).lease(LEASE).acquireTimeout(Duration.ofSeconds(30)).build();
		}

		@Override
		public void warmUp() {
			for (int i = 0; i < WARM_UP_LOCKS; i++) {
				this.peer.template.acquire(definition("bench:warm:" + i)).close();
			}
		}

		@Override
		public void acquire(int index, String key) {
			this.handles[index] = this.peer.template.acquire(definition(key));
		}

		@Override
		public int lost() {
			int lost = 0;
			for (LockHandle handle : this.handles) {
				if (handle.isLost()) {
					lost++;
				}
			}
			return lost;
		}

		@Override
		public void release(int index) {
			this.handles[index].close();
		}

		@Override
		public String[] watchdogThreads() {
			return new String[] { "distributed-lock-" };
		}

		@Override
		public String[] ioThreads() {
			return new String[] { "lettuce-" };
		}

		@Override
		public void close() {
			this.peer.close();
		}

	}

	/**
	 * Redisson: {@code RLock.lock()} without a lease, so its watchdog renews it; {@code lockWatchdogTimeout} 3 s
	 * (it renews a third of it after the last renewal, as ours does). Its watchdog runs on its timer and Netty
	 * threads, which also do its I/O.
	 * <p>
	 * Its warm-up takes locks with a lease (no watchdog): in Redisson 4.7.0 every time the set of watched locks
	 * goes from empty to not empty, the watchdog schedules another renewal timer, and a timer from before keeps
	 * running if it finds the watchdog running again when it fires; so watchdog locks taken and released one after
	 * the other within a third of the watchdog timeout leave that many timers, each renewing every held lock.
	 * {@code redisson-after-churn} warms up that way (500 watchdog lock+unlock pairs) to show it.
	 */
	static final class RedissonHolder implements Holder {

		private final RedissonClient redisson;

		private final RLock[] locks;

		private final boolean churn;

		RedissonHolder(String host, int port, int n, boolean churn) {
			Config config = LockPeer.RedissonPeer.config(host, port);
			config.setLockWatchdogTimeout(LEASE.toMillis());
			this.redisson = Redisson.create(config);
			this.locks = new RLock[n];
			this.churn = churn;
		}

		@Override
		public void warmUp() {
			for (int i = 0; i < WARM_UP_LOCKS; i++) {
				RLock lock = this.redisson.getLock("redisson:bench:warm:" + i);
				if (this.churn) {
					lock.lock();
				}
				else {
					lock.lock(30, TimeUnit.SECONDS);
				}
				lock.unlock();
			}
		}

		@Override
		public void acquire(int index, String key) {
			this.locks[index] = this.redisson.getLock("redisson:" + key);
			this.locks[index].lock();
		}

		@Override
		public int lost() throws Exception {
			long thread = Thread.currentThread().getId();
			int lost = 0;
			int chunk = 1000;
			for (int from = 0; from < this.locks.length; from += chunk) {
				List<CompletableFuture<Boolean>> held = new ArrayList<>(chunk);
				for (int i = from; i < Math.min(this.locks.length, from + chunk); i++) {
					held.add(this.locks[i].isHeldByThreadAsync(thread).toCompletableFuture());
				}
				for (CompletableFuture<Boolean> future : held) {
					if (!future.get()) {
						lost++;
					}
				}
			}
			return lost;
		}

		@Override
		public void release(int index) {
			this.locks[index].unlock();
		}

		@Override
		public String[] watchdogThreads() {
			return new String[] { "redisson-" };
		}

		@Override
		public String[] ioThreads() {
			return new String[0];
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

}
