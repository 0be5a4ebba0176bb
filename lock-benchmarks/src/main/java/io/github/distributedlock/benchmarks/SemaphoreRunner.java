package io.github.distributedlock.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Mode;

/**
 * {@code run.sh semaphore}: runs {@link SemaphoreBenchmarks} for this library and Redisson in alternating order,
 * counts the client requests per acquire+release pair (uncontended, and in S2's setup), and writes a Markdown
 * report with the ratios and the targets ({@link SemaphoreReport}). Arguments: the report's path. System
 * properties: {@code bench.redis.host}, {@code bench.redis.port}, {@code bench.semaphore.rounds} (rounds, 3: about
 * 10 minutes on 2 cores), {@code bench.extras.dir}. Redis is flushed before each JMH run and each count.
 */
public final class SemaphoreRunner {

	static final int ROUNDS = Integer.getInteger("bench.semaphore.rounds", 3);

	static final String S1 = "s1Uncontended";

	static final String S2 = "s2Permits4TwoInstances16Threads";

	static final String S3 = "s3Permits4TwoInstances16ThreadsWork1ms";

	/** Every round's results; S2's and S3's extras merged over the rounds. */
	private final JmhResults results;

	private final RedisAdmin admin;

	/**
	 * @param results where the runs go
	 * @param admin the Redis under test, flushed before each run
	 */
	SemaphoreRunner(JmhResults results, RedisAdmin admin) {
		this.results = results;
		this.admin = admin;
	}

	/**
	 * Runs the rounds and the counts, and writes the report.
	 * @param args the report's path (default {@code target/semaphore.md})
	 * @throws Exception if a run fails
	 */
	public static void main(String[] args) throws Exception {
		Path report = Path.of((args.length > 0) ? args[0] : "target/semaphore.md");
		try (RedisAdmin admin = RedisAdmin.connect()) {
			SemaphoreRunner runner = new SemaphoreRunner(new JmhResults(false), admin);
			runner.rounds(ROUNDS, "s", List.of(Mode.Throughput, Mode.SampleTime));
			Map<String, long[]> uncontended = new LinkedHashMap<>();
			Map<String, long[]> contended = new LinkedHashMap<>();
			for (String peer : SemaphorePeer.ALL) {
				uncontended.put(peer, runner.countUncontended(peer));
				contended.put(peer, runner.countContended(peer));
			}
			String markdown = new SemaphoreReport(runner.results, uncontended, contended).markdown();
			Files.createDirectories(report.toAbsolutePath().getParent());
			Files.writeString(report, markdown, StandardCharsets.UTF_8);
			System.out.println(markdown);
			System.out.println("Wrote " + report.toAbsolutePath());
		}
	}

	/**
	 * Runs the semaphore benchmarks whose names start with {@code prefix} for every peer, round after round, the
	 * peers in alternating order, in each mode.
	 * @param rounds how many rounds
	 * @param prefix such as {@code s} (all of them) or {@code s[12]} (a regular expression)
	 * @param modes the JMH modes, each a fork of its own
	 * @return the results of every round
	 * @throws Exception if a run fails
	 */
	JmhResults rounds(int rounds, String prefix, List<Mode> modes) throws Exception {
		List<String> order = new ArrayList<>(SemaphorePeer.ALL);
		for (int round = 0; round < rounds; round++) {
			for (String peer : order) {
				for (Mode mode : modes) {
					run(peer, prefix, mode);
				}
			}
			Collections.reverse(order);
		}
		return this.results;
	}

	private void run(String peer, String prefix, Mode mode) throws Exception {
		this.admin.flushAll();
		Extras.clear(S2, peer);
		Extras.clear(S3, peer);
		this.results.run(SemaphoreBenchmarks.class.getName() + "\\." + prefix, mode, peer, peer);
		for (String benchmark : List.of(S2, S3)) {
			this.results.mergeExtras(benchmark, peer);
		}
	}

	/**
	 * Counts the Redis commands of 1000 uncontended acquire+release pairs of one client (after one pair that
	 * loads the scripts and subscribes).
	 * @return requests, commands inside scripts, script microseconds, pairs
	 */
	private long[] countUncontended(String peerName) throws Exception {
		int pairs = Integer.getInteger("bench.commands.pairs", 1000);
		this.admin.flushAll();
		try (SemaphorePeer peer = SemaphorePeer.create(peerName, "bench:semaphore-commands", SemaphoreBenchmarks.PERMITS)) {
			peer.acquire().close();
			this.admin.resetStats();
			for (int i = 0; i < pairs; i++) {
				peer.acquire().close();
			}
			long[] counted = this.admin.commandStats().requestsInsideScriptMicros();
			return new long[] { counted[0], counted[1], counted[2], pairs };
		}
	}

	/**
	 * Counts the Redis commands of S2's setup (two clients x 8 threads, one key) run for
	 * {@code bench.semaphore.count.seconds} (5) outside JMH, after one pair per thread.
	 * @return requests, commands inside scripts, script microseconds, pairs
	 */
	private long[] countContended(String peerName) throws Exception {
		long seconds = Long.getLong("bench.semaphore.count.seconds", 5);
		this.admin.flushAll();
		SemaphorePeer[] clients = new SemaphorePeer[2];
		for (int i = 0; i < 2; i++) {
			clients[i] = SemaphorePeer.create(peerName, "bench:semaphore-contended", SemaphoreBenchmarks.PERMITS);
			clients[i].acquire().close();
		}
		try {
			AtomicLong pairs = new AtomicLong();
			List<Thread> threads = new ArrayList<>();
			this.admin.resetStats();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
			for (int t = 0; t < SemaphoreBenchmarks.THREADS; t++) {
				SemaphorePeer client = clients[t % 2];
				Thread thread = new Thread(() -> {
					try {
						while (System.nanoTime() < deadline) {
							client.acquire().close();
							pairs.incrementAndGet();
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
				thread.start();
				threads.add(thread);
			}
			for (Thread thread : threads) {
				thread.join();
			}
			long[] counted = this.admin.commandStats().requestsInsideScriptMicros();
			return new long[] { counted[0], counted[1], counted[2], pairs.get() };
		}
		finally {
			for (SemaphorePeer client : clients) {
				client.close();
			}
		}
	}

}
