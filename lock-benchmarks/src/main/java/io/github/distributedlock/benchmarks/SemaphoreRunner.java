package io.github.distributedlock.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code run.sh semaphore}: runs {@link SemaphoreBenchmarks} for this library and Redisson in alternating order,
 * counts the client requests per acquire+release pair (uncontended, and in S2's setup), and writes a Markdown
 * report with the ratios and the targets. Arguments: the report's path. System properties:
 * {@code bench.redis.host}, {@code bench.redis.port}, {@code bench.semaphore.rounds} (rounds, 3: about 10 minutes
 * on 2 cores), {@code bench.extras.dir}. Redis is flushed before each JMH run and each count.
 */
public final class SemaphoreRunner {

	static final int ROUNDS = Integer.getInteger("bench.semaphore.rounds", 3);

	static final String S1 = "s1Uncontended";

	static final String S2 = "s2Permits4TwoInstances16Threads";

	static final String S3 = "s3Permits4TwoInstances16ThreadsWork1ms";

	/** Benchmark, peer, the JMH results of every round; throughput and sample time apart. */
	private final Map<String, Map<String, List<RunResult>>> throughput = new LinkedHashMap<>();

	private final Map<String, Map<String, List<RunResult>>> latency = new LinkedHashMap<>();

	/** S2's and S3's extras merged over the rounds: benchmark, peer, name, value. */
	private final Map<String, Map<String, Map<String, Long>>> extras = new LinkedHashMap<>();

	private final RedisCommands<String, String> admin;

	private SemaphoreRunner(RedisCommands<String, String> admin) {
		this.admin = admin;
	}

	/**
	 * Runs the rounds and the counts, and writes the report.
	 * @param args the report's path (default {@code target/semaphore.md})
	 * @throws Exception if a run fails
	 */
	public static void main(String[] args) throws Exception {
		Path report = Path.of((args.length > 0) ? args[0] : "target/semaphore.md");
		RedisClient redis = RedisClient.create(RedisURI.create(host(), port()));
		try (StatefulRedisConnection<String, String> connection = redis.connect()) {
			SemaphoreRunner runner = new SemaphoreRunner(connection.sync());
			List<String> order = new ArrayList<>(SemaphorePeer.ALL);
			for (int round = 0; round < ROUNDS; round++) {
				for (String peer : order) {
					runner.run(peer, Mode.Throughput, runner.throughput);
					runner.run(peer, Mode.SampleTime, runner.latency);
				}
				Collections.reverse(order);
			}
			Map<String, long[]> uncontended = new LinkedHashMap<>();
			Map<String, long[]> contended = new LinkedHashMap<>();
			for (String peer : SemaphorePeer.ALL) {
				uncontended.put(peer, runner.countUncontended(peer));
				contended.put(peer, runner.countContended(peer));
			}
			String markdown = new SemaphoreReport(runner, uncontended, contended).markdown();
			Files.createDirectories(report.toAbsolutePath().getParent());
			Files.writeString(report, markdown, StandardCharsets.UTF_8);
			System.out.println(markdown);
			System.out.println("Wrote " + report.toAbsolutePath());
		}
		finally {
			redis.shutdown();
		}
	}

	private void run(String peer, Mode mode, Map<String, Map<String, List<RunResult>>> into) throws Exception {
		this.admin.flushall();
		Extras.clear(S2, peer);
		Extras.clear(S3, peer);
		OptionsBuilder options = new OptionsBuilder();
		options.include(SemaphoreBenchmarks.class.getName() + "\\.s")
			.mode(mode)
			.timeUnit((mode == Mode.SampleTime) ? TimeUnit.MICROSECONDS : TimeUnit.SECONDS)
			.forks(1)
			.warmupIterations(3)
			.warmupTime(TimeValue.seconds(1))
			.measurementIterations(3)
			.measurementTime(TimeValue.seconds(2))
			.shouldFailOnError(true)
			.param("peer", peer)
			.jvmArgsAppend("-Xmx1g", "-Dbench.redis.host=" + host(), "-Dbench.redis.port=" + port(),
					"-Dbench.extras.dir=" + System.getProperty("bench.extras.dir", "target/bench-extras"));
		for (RunResult result : new Runner(options.build()).run()) {
			into.computeIfAbsent(LockBenchmarks.name(result.getParams()), (key) -> new LinkedHashMap<>())
				.computeIfAbsent(peer, (key) -> new ArrayList<>())
				.add(result);
		}
		for (String benchmark : List.of(S2, S3)) {
			mergeExtras(benchmark, peer, Extras.read(benchmark, peer));
		}
	}

	/** Violations add up over the rounds, the most inside is the most of any round, the least fair round is kept. */
	private void mergeExtras(String benchmark, String peer, Properties round) {
		Map<String, Long> merged = this.extras.computeIfAbsent(benchmark, (key) -> new LinkedHashMap<>())
			.computeIfAbsent(peer, (key) -> new LinkedHashMap<>());
		if (round.isEmpty()) {
			return;
		}
		merged.merge("violations", Long.parseLong(round.getProperty("violations")), Long::sum);
		merged.merge("mostInside", Long.parseLong(round.getProperty("mostInside")), Math::max);
		long slowest = Long.parseLong(round.getProperty("slowestInstance"));
		long fastest = Long.parseLong(round.getProperty("fastestInstance"));
		if (!merged.containsKey("fastestInstance") || (double) slowest / Math.max(1, fastest)
				< (double) merged.get("slowestInstance") / Math.max(1, merged.get("fastestInstance"))) {
			merged.put("slowestInstance", slowest);
			merged.put("fastestInstance", fastest);
		}
	}

	/**
	 * Counts the Redis commands of 1000 uncontended acquire+release pairs of one client (after one pair that
	 * loads the scripts and subscribes).
	 * @return requests, commands inside scripts, script microseconds, pairs
	 */
	private long[] countUncontended(String peerName) throws Exception {
		int pairs = Integer.getInteger("bench.commands.pairs", 1000);
		this.admin.flushall();
		try (SemaphorePeer peer = SemaphorePeer.create(peerName, "bench:semaphore-commands", SemaphoreBenchmarks.PERMITS)) {
			peer.acquire().close();
			this.admin.configResetstat();
			for (int i = 0; i < pairs; i++) {
				peer.acquire().close();
			}
			long[] counted = BenchmarkRunner.commandStats(this.admin.info("commandstats"));
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
		this.admin.flushall();
		SemaphorePeer[] clients = new SemaphorePeer[2];
		for (int i = 0; i < 2; i++) {
			clients[i] = SemaphorePeer.create(peerName, "bench:semaphore-contended", SemaphoreBenchmarks.PERMITS);
			clients[i].acquire().close();
		}
		try {
			AtomicLong pairs = new AtomicLong();
			List<Thread> threads = new ArrayList<>();
			this.admin.configResetstat();
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
			long[] counted = BenchmarkRunner.commandStats(this.admin.info("commandstats"));
			return new long[] { counted[0], counted[1], counted[2], pairs.get() };
		}
		finally {
			for (SemaphorePeer client : clients) {
				client.close();
			}
		}
	}

	/** The median throughput over every measurement iteration of every round, pairs/s. */
	double ops(String benchmark, String peer) {
		List<Double> scores = new ArrayList<>();
		for (RunResult result : this.throughput.getOrDefault(benchmark, Map.of()).getOrDefault(peer, List.of())) {
			for (BenchmarkResult fork : result.getBenchmarkResults()) {
				for (IterationResult iteration : fork.getIterationResults()) {
					scores.add(iteration.getPrimaryResult().getScore());
				}
			}
		}
		return median(scores);
	}

	/** The median over the rounds of each round's percentile {@code p}, µs. */
	double percentile(String benchmark, String peer, double p) {
		List<Double> values = new ArrayList<>();
		for (RunResult result : this.latency.getOrDefault(benchmark, Map.of()).getOrDefault(peer, List.of())) {
			values.add(result.getPrimaryResult().getStatistics().getPercentile(p));
		}
		return median(values);
	}

	/** An extra of a benchmark's peer merged over the rounds, or {@code null}. */
	Long extra(String benchmark, String peer, String name) {
		return this.extras.getOrDefault(benchmark, Map.of()).getOrDefault(peer, Map.of()).get(name);
	}

	private static double median(List<Double> values) {
		if (values.isEmpty()) {
			return Double.NaN;
		}
		List<Double> sorted = new ArrayList<>(values);
		Collections.sort(sorted);
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

	private static String host() {
		return System.getProperty("bench.redis.host", "127.0.0.1");
	}

	private static int port() {
		return Integer.getInteger("bench.redis.port", 6379);
	}

	static String date() {
		return LocalDate.now().toString() + ", " + Runtime.getRuntime().availableProcessors() + " cores, "
				+ System.getProperty("java.vm.name") + " " + System.getProperty("java.version");
	}

	static String fmt(double value) {
		if (Double.isNaN(value)) {
			return "-";
		}
		return (value >= 100) ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%.2f", value);
	}

}
