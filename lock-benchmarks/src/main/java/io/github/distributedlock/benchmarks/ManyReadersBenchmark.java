package io.github.distributedlock.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Many readers of one read/write lock (issue 14 item 6): N readers hold the read side of ONE key at once, each
 * with its own 3 s lease that the watchdogs of four clients renew (every second), and this measures, per N:
 * the Redis time of each read/write script (from {@code SLOWLOG}, which Redis fills with every command when
 * {@code slowlog-log-slower-than} is 0; the scripts are told apart by their argument count within a phase),
 * the latency of one more reader's acquire+release, of a writer's single try while the N readers hold it, and
 * how much Redis time one second of renewals costs. Not a JMH benchmark: each phase is one measured pass.
 * <p>
 * Arguments: the reader counts (default 10 100 1000 5000). {@code -Dbench.redis.port}: a Redis of its own
 * (its slow log and settings are changed); {@code -Dbench.readers.report}: a Markdown file for the table.
 */
public final class ManyReadersBenchmark {

	private static final int CLIENTS = 4;

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final int EXTRA_READS = 200;

	private static final int WRITE_TRIES = 50;

	private final RedisCommands<String, String> admin;

	private final List<LockPeer.Ours> clients = new ArrayList<>();

	private ManyReadersBenchmark(RedisCommands<String, String> admin) {
		this.admin = admin;
	}

	/**
	 * Runs the phases for every reader count and prints the table (also to {@code -Dbench.readers.report}).
	 * @param args the reader counts; none: 10, 100, 1,000 and 5,000
	 * @throws Exception when Redis fails, a writer acquires the lock while readers hold it, or the lock's key is
	 * left after every reader released it
	 */
	public static void main(String[] args) throws Exception {
		int[] counts = (args.length > 0) ? Arrays.stream(args).mapToInt(Integer::parseInt).toArray()
				: new int[] { 10, 100, 1000, 5000 };
		StringBuilder md = new StringBuilder(header());
		try (RedisAdmin redis = RedisAdmin.connect()) {
			RedisCommands<String, String> admin = redis.sync();
			admin.configSet("slowlog-log-slower-than", "0");
			admin.configSet("slowlog-max-len", "1000000");
			ManyReadersBenchmark benchmark = new ManyReadersBenchmark(admin);
			try {
				for (int i = 0; i < CLIENTS + 1; i++) {
					benchmark.clients.add(new LockPeer.Ours(RedisAdmin.host(), RedisAdmin.port()));
				}
				for (int n : counts) {
					String row = benchmark.run(n);
					System.out.println(row);
					md.append(row).append('\n');
				}
			}
			finally {
				benchmark.clients.forEach(LockPeer.Ours::close);
				admin.configSet("slowlog-log-slower-than", "10000");
			}
		}
		System.out.println(md);
		String report = System.getProperty("bench.readers.report");
		if (report != null) {
			Files.writeString(Path.of(report), md, StandardCharsets.UTF_8);
		}
	}

	private static String header() {
		return "| readers | acquire all s | renewals/s (expected) | read_renew µs p50 / mean / max | Redis busy renewing | "
				+ "lost | +1 read_acquire µs p50 / mean / max | +1 read_release µs p50 / mean / max | +1 read pair ms p50 / p99 | "
				+ "write try µs p50 / mean / max | write try ms p50 / p99 | release all s |\n"
				+ "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
	}

	/** Runs every phase for {@code n} readers and returns the table row. */
	private String run(int n) throws Exception {
		String key = "bench:readers:" + n;
		LockDefinition read = LockDefinition.builder(key).type(LockType.READ).lease(LEASE)
			.acquireTimeout(Duration.ofSeconds(60)).build();
		LockHandle[] handles = new LockHandle[n];
		long start = System.nanoTime();
		acquireAll(read, handles);
		double acquireSeconds = (System.nanoTime() - start) / 1e9;

		// one lease of renewals: every reader is renewed three times
		this.admin.slowlogReset();
		long window = System.nanoTime();
		TimeUnit.MILLISECONDS.sleep(LEASE.toMillis());
		double windowSeconds = (System.nanoTime() - window) / 1e9;
		List<List<Object>> renewLog = slowlog();
		Stats renew = Stats.of(renewLog, 2);
		printRenewalsPerOwner(renewLog);
		System.out.println("Renewals over 1 ms in Redis (full loads of the hash, or Redis descheduled), µs: "
				+ Arrays.toString(Arrays.stream(renew.micros()).filter((micros) -> micros > 1000).toArray()));
		int lost = (int) Arrays.stream(handles).filter(LockHandle::isLost).count();
		Arrays.stream(handles).filter(LockHandle::isLost).findFirst().ifPresent(ManyReadersBenchmark::printLoss);

		LockPeer.Ours extra = this.clients.get(CLIENTS);
		this.admin.slowlogReset();
		long[] readPairs = new long[EXTRA_READS];
		for (int i = 0; i < EXTRA_READS; i++) {
			long t = System.nanoTime();
			extra.template.acquire(read).close();
			readPairs[i] = System.nanoTime() - t;
		}
		List<List<Object>> readLog = slowlog();

		LockDefinition write = LockDefinition.builder(key).type(LockType.WRITE).lease(LEASE).acquireTimeout(Duration.ZERO)
			.build();
		this.admin.slowlogReset();
		long[] writeTries = new long[WRITE_TRIES];
		for (int i = 0; i < WRITE_TRIES; i++) {
			long t = System.nanoTime();
			if (extra.template.tryAcquire(write).isPresent()) {
				throw new IllegalStateException("A writer acquired the lock while " + n + " readers held it");
			}
			writeTries[i] = System.nanoTime() - t;
		}
		Stats writeTry = Stats.of(slowlog(), 4);

		start = System.nanoTime();
		for (LockHandle handle : handles) {
			try {
				handle.close();
			}
			catch (LockLostException ex) {
				// counted above, as the watchdog saw it
			}
		}
		double releaseSeconds = (System.nanoTime() - start) / 1e9;
		if (this.admin.exists("lock:" + key) != 0) {
			throw new IllegalStateException("The lock's key is left after every reader released it: " + key);
		}
		return String.format(Locale.ROOT, "| %,d | %.1f | %,.0f (%,.0f) | %s | %.0f %% | %d | %s | %s | %s | %s | %s | %.1f |",
				n, acquireSeconds, renew.count() / windowSeconds, (double) n / (LEASE.toMillis() / 3000.0),
				renew.summary(), 100 * renew.total() / (windowSeconds * 1e6), lost,
				Stats.of(readLog, 4).summary(), Stats.of(readLog, 3).summary(), millis(readPairs),
				writeTry.summary(), millis(writeTries), releaseSeconds);
	}

	/** Prints how often the most renewed owner was renewed in the window (a sanity check of the watchdog). */
	private static void printRenewalsPerOwner(List<List<Object>> log) {
		java.util.Map<String, Integer> perOwner = new java.util.HashMap<>();
		for (List<Object> entry : log) {
			List<?> args = (List<?>) entry.get(3);
			if (args.size() == 6 && "EVALSHA".equalsIgnoreCase(String.valueOf(args.get(0)))) {
				perOwner.merge(String.valueOf(args.get(4)), 1, Integer::sum);
			}
		}
		System.out.println("Renewed owners: " + perOwner.size() + ", most renewals of one owner: "
				+ perOwner.values().stream().mapToInt(Integer::intValue).max().orElse(0));
	}

	private static void printLoss(LockHandle handle) {
		try {
			handle.checkHeld();
		}
		catch (LockLostException ex) {
			System.out.println("A reader was lost: " + ex.getMessage());
		}
	}

	/** Acquires the read side once per handle, each from a thread of its own (an owner is a thread). */
	private void acquireAll(LockDefinition read, LockHandle[] handles) throws InterruptedException {
		int batch = 32;
		AtomicInteger failures = new AtomicInteger();
		for (int from = 0; from < handles.length; from += batch) {
			int to = Math.min(handles.length, from + batch);
			CountDownLatch done = new CountDownLatch(to - from);
			for (int i = from; i < to; i++) {
				int index = i;
				LockPeer.Ours client = this.clients.get(i % CLIENTS);
				new Thread(() -> {
					try {
						handles[index] = client.template.acquire(read);
					}
					catch (RuntimeException ex) {
						failures.incrementAndGet();
						ex.printStackTrace();
					}
					finally {
						done.countDown();
					}
				}, "reader-" + i).start();
			}
			done.await();
			if (failures.get() > 0) {
				throw new IllegalStateException(failures.get() + " readers could not acquire the read lock");
			}
		}
	}

	@SuppressWarnings("unchecked")
	private List<List<Object>> slowlog() {
		List<List<Object>> entries = new ArrayList<>();
		for (Object entry : this.admin.slowlogGet(-1)) {
			entries.add((List<Object>) entry);
		}
		return entries;
	}

	private static String millis(long[] nanos) {
		long[] sorted = nanos.clone();
		Arrays.sort(sorted);
		return String.format(Locale.ROOT, "%.2f / %.2f", sorted[sorted.length / 2] / 1e6,
				sorted[(int) Math.min(sorted.length - 1, Math.round(sorted.length * 0.99))] / 1e6);
	}

	/**
	 * Redis time in microseconds of the EVALSHA calls in a slow log with {@code argc} script arguments
	 * (read/write scripts: 2 = renew, 3 = release, 4 = acquire), sorted.
	 */
	private record Stats(long[] micros) {

		static Stats of(List<List<Object>> log, int argc) {
			List<Long> micros = new ArrayList<>();
			for (List<Object> entry : log) {
				List<?> args = (List<?>) entry.get(3);
				if (args.size() < 3 || !"EVALSHA".equalsIgnoreCase(String.valueOf(args.get(0)))) {
					continue;
				}
				int keys = Integer.parseInt(String.valueOf(args.get(2)));
				if (args.size() - 3 - keys == argc) {
					micros.add((Long) entry.get(2));
				}
			}
			return new Stats(micros.stream().mapToLong(Long::longValue).sorted().toArray());
		}

		long count() {
			return this.micros.length;
		}

		long total() {
			return Arrays.stream(this.micros).sum();
		}

		/** "median / mean / max" in microseconds, or "-" when there were none. */
		String summary() {
			return (this.micros.length == 0) ? "-" : String.format(Locale.ROOT, "%,d / %,.0f / %,d",
					this.micros[this.micros.length / 2], (double) total() / this.micros.length, this.micros[this.micros.length - 1]);
		}

	}

}
