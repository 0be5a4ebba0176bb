package io.github.distributedlock.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The JMH runs of a runner ({@link LockWorkloads}, {@link SemaphoreRunner}, {@link AnnotationRunner}) over its rounds: runs one
 * benchmark pass in a fork on the Redis under test, keeps every round's results by benchmark and peer, merges
 * the forks' {@link Extras}, and gives the medians the reports show. Not thread-safe: the runner's main thread
 * uses it.
 */
final class JmhResults {

	private final int warmupIterations;

	private final int measurementIterations;

	private final TimeValue iterationTime;

	/** Benchmark, peer, the JMH results of every round; throughput and sample time apart. */
	private final Map<String, Map<String, List<RunResult>>> throughput = new LinkedHashMap<>();

	private final Map<String, Map<String, List<RunResult>>> latency = new LinkedHashMap<>();

	/** The forked JVMs' {@link Extras}, merged over the rounds: benchmark, peer, name, value. */
	private final Map<String, Map<String, Map<String, Long>>> extras = new LinkedHashMap<>();

	/**
	 * @param quick whether each run is 1 x 1 s warm-up and 1 x 1 s measurement (a smoke run) instead of 3 x 1 s
	 * and 3 x 2 s
	 */
	JmhResults(boolean quick) {
		this(quick ? 1 : 3, quick ? 1 : 3, TimeValue.seconds(quick ? 1 : 2));
	}

	/**
	 * @param warmupIterations warm-up iterations of 1 s per run
	 * @param measurementIterations measurement iterations per run
	 * @param iterationTime how long a measurement iteration lasts
	 */
	JmhResults(int warmupIterations, int measurementIterations, TimeValue iterationTime) {
		this.warmupIterations = warmupIterations;
		this.measurementIterations = measurementIterations;
		this.iterationTime = iterationTime;
	}

	/**
	 * What one run is made of, for a report.
	 * @return such as {@code 1 x 1 s warm-up, 2 x 1 s measurement}
	 */
	String iterations() {
		return this.warmupIterations + " x 1 s warm-up, " + this.measurementIterations + " x " + this.iterationTime
				+ " measurement";
	}

	/**
	 * Runs the benchmarks {@code include} matches in one fork of 1 GB heap, failing on an error, and keeps their
	 * results under {@code peer}.
	 * @param include the JMH include pattern
	 * @param mode throughput (reported per second) or sample time (in microseconds)
	 * @param peerParam the {@code peer} parameter of the benchmark states, {@code null} for their default
	 * @param peer the peer to keep the results under
	 * @return the names of the benchmarks that ran
	 * @throws Exception if JMH fails
	 */
	List<String> run(String include, Mode mode, @Nullable String peerParam, String peer) throws Exception {
		ChainedOptionsBuilder options = new OptionsBuilder().include(include)
			.mode(mode)
			.timeUnit((mode == Mode.SampleTime) ? TimeUnit.MICROSECONDS : TimeUnit.SECONDS)
			.forks(1)
			.warmupIterations(this.warmupIterations)
			.warmupTime(TimeValue.seconds(1))
			.measurementIterations(this.measurementIterations)
			.measurementTime(this.iterationTime)
			.shouldFailOnError(true)
			.jvmArgsAppend("-Xmx1g", "-Dbench.redis.host=" + RedisAdmin.host(), "-Dbench.redis.port=" + RedisAdmin.port(),
					"-Dbench.extras.dir=" + System.getProperty("bench.extras.dir", "target/bench-extras"));
		if (peerParam != null) {
			options.param("peer", peerParam);
		}
		Map<String, Map<String, List<RunResult>>> into = (mode == Mode.SampleTime) ? this.latency : this.throughput;
		List<String> names = new ArrayList<>();
		for (RunResult result : new Runner(options.build()).run()) {
			String name = LockBenchmarks.name(result.getParams());
			into.computeIfAbsent(name, (key) -> new LinkedHashMap<>())
				.computeIfAbsent(peer, (key) -> new ArrayList<>())
				.add(result);
			names.add(name);
		}
		return names;
	}

	/**
	 * Adds a round's extras (as the fork left them) to those of earlier rounds: violations add up, the writer's
	 * longest wait and the most holders inside are the most of any round, and the counts of the least fair round
	 * (slowest over fastest instance) are kept.
	 * @param benchmark the benchmark's name
	 * @param peer the peer
	 */
	void mergeExtras(String benchmark, String peer) {
		Map<String, Long> merged = this.extras.computeIfAbsent(benchmark, (key) -> new LinkedHashMap<>())
			.computeIfAbsent(peer, (key) -> new LinkedHashMap<>());
		Properties round = Extras.read(benchmark, peer);
		for (String name : round.stringPropertyNames()) {
			long value = Long.parseLong(round.getProperty(name));
			if (name.startsWith("violations")) {
				merged.merge(name, value, Long::sum);
			}
			else if (name.equals("longestWriterWaitMicros") || name.equals("mostInside")) {
				merged.merge(name, value, Math::max);
			}
		}
		if (round.containsKey("slowestInstance") && round.containsKey("fastestInstance")) {
			long slowest = Long.parseLong(round.getProperty("slowestInstance"));
			long fastest = Long.parseLong(round.getProperty("fastestInstance"));
			Long keptSlowest = merged.get("slowestInstance");
			Long keptFastest = merged.get("fastestInstance");
			if (keptSlowest == null || keptFastest == null
					|| (double) slowest / Math.max(1, fastest) < (double) keptSlowest / Math.max(1, keptFastest)) {
				merged.put("slowestInstance", slowest);
				merged.put("fastestInstance", fastest);
			}
		}
	}

	/**
	 * The median throughput over every measurement iteration of every round: of a throughput run, or else
	 * JMH's count of measured operations over the iteration's time in a sample-time run (so that one run gives
	 * both a throughput and the latency percentiles).
	 * @param benchmark the benchmark's name
	 * @param peer the peer
	 * @return ops/s, {@code NaN} when it did not run
	 */
	double ops(String benchmark, String peer) {
		List<Double> scores = new ArrayList<>();
		for (RunResult round : rounds(benchmark, peer)) {
			scores.addAll(throughputs(round));
		}
		return Spread.of(scores).median();
	}

	/**
	 * The throughput of each round: the median of its measurement iterations (see {@link #ops}).
	 * @param benchmark the benchmark's name
	 * @param peer the peer
	 * @return ops/s per round, in the order the rounds ran; empty when it did not run
	 */
	List<Double> roundOps(String benchmark, String peer) {
		return rounds(benchmark, peer).stream().map((round) -> Spread.of(throughputs(round)).median()).toList();
	}

	/**
	 * The ratio of two peers' throughputs, per round.
	 * @param benchmark the benchmark's name
	 * @param peer the peer above the line
	 * @param base the peer below the line
	 * @return the ratios' spread over the rounds both ran
	 */
	Spread ratio(String benchmark, String peer, String base) {
		return Spread.ratios(roundOps(benchmark, peer), roundOps(benchmark, base));
	}

	/**
	 * The ratio of a group benchmark's method's throughputs of two peers, per round.
	 * @param benchmark the group's name
	 * @param method the method's name
	 * @param peer the peer above the line
	 * @param base the peer below the line
	 * @return the ratios' spread over the rounds both ran
	 */
	Spread secondaryRatio(String benchmark, String method, String peer, String base) {
		return Spread.ratios(roundSecondary(benchmark, method, peer), roundSecondary(benchmark, method, base));
	}

	/**
	 * The median of a group benchmark's method's throughput over every measurement iteration of every round.
	 * @param benchmark the group's name
	 * @param peer the peer
	 * @param method the method's name
	 * @return ops/s, {@code NaN} when it did not run
	 */
	double secondary(String benchmark, String peer, String method) {
		List<Double> scores = new ArrayList<>();
		for (RunResult round : this.throughput.getOrDefault(benchmark, Map.of()).getOrDefault(peer, List.of())) {
			scores.addAll(secondaries(round, method));
		}
		return Spread.of(scores).median();
	}

	/**
	 * A group benchmark's method's throughput of each round: the median of its measurement iterations.
	 * @param benchmark the group's name
	 * @param method the method's name
	 * @param peer the peer
	 * @return ops/s per round, in the order the rounds ran; empty when it did not run
	 */
	List<Double> roundSecondary(String benchmark, String method, String peer) {
		return this.throughput.getOrDefault(benchmark, Map.of())
			.getOrDefault(peer, List.of())
			.stream()
			.map((round) -> Spread.of(secondaries(round, method)).median())
			.toList();
	}

	private static List<Double> secondaries(RunResult round, String method) {
		List<Double> scores = new ArrayList<>();
		for (IterationResult iteration : iterations(round)) {
			Result<?> secondary = iteration.getSecondaryResults().get(method);
			if (secondary != null) {
				scores.add(secondary.getScore());
			}
		}
		return scores;
	}

	/** The rounds of a benchmark and peer: its throughput runs, or else its sample-time runs. */
	private List<RunResult> rounds(String benchmark, String peer) {
		List<RunResult> rounds = this.throughput.getOrDefault(benchmark, Map.of()).getOrDefault(peer, List.of());
		return rounds.isEmpty() ? this.latency.getOrDefault(benchmark, Map.of()).getOrDefault(peer, List.of()) : rounds;
	}

	/** Each measurement iteration's ops/s of one run (see {@link #ops}). */
	private static List<Double> throughputs(RunResult round) {
		List<Double> scores = new ArrayList<>();
		for (IterationResult iteration : iterations(round)) {
			if (round.getParams().getMode() == Mode.SampleTime) {
				double seconds = iteration.getParams().getTime().convertTo(TimeUnit.MICROSECONDS) / 1e6;
				scores.add(iteration.getMetadata().getMeasuredOps() / seconds);
			}
			else {
				scores.add(iteration.getPrimaryResult().getScore());
			}
		}
		return scores;
	}

	private static List<IterationResult> iterations(RunResult round) {
		List<IterationResult> iterations = new ArrayList<>();
		for (BenchmarkResult fork : round.getBenchmarkResults()) {
			iterations.addAll(fork.getIterationResults());
		}
		return iterations;
	}

	/**
	 * The median over the rounds of each round's percentile {@code p}.
	 * @param benchmark the benchmark's name
	 * @param peer the peer
	 * @param p the percentile, 0 to 100
	 * @return µs, {@code NaN} when it did not run
	 */
	double percentile(String benchmark, String peer, double p) {
		return Spread.of(roundPercentiles(benchmark, peer, p)).median();
	}

	/**
	 * Each round's percentile {@code p} of a sample-time run.
	 * @param benchmark the benchmark's name
	 * @param peer the peer
	 * @param p the percentile, 0 to 100
	 * @return µs per round, in the order the rounds ran; empty when it did not run
	 */
	List<Double> roundPercentiles(String benchmark, String peer, double p) {
		List<Double> values = new ArrayList<>();
		for (RunResult result : this.latency.getOrDefault(benchmark, Map.of()).getOrDefault(peer, List.of())) {
			values.add(result.getPrimaryResult().getStatistics().getPercentile(p));
		}
		return values;
	}

	/**
	 * An extra merged over the rounds.
	 * @param benchmark the benchmark's name
	 * @param peer the peer
	 * @param name the extra's name
	 * @return its value, {@code null} when no round wrote it
	 */
	@Nullable Long extra(String benchmark, String peer, String name) {
		return this.extras.getOrDefault(benchmark, Map.of()).getOrDefault(peer, Map.of()).get(name);
	}

	/**
	 * The slowest instance's acquisitions over the fastest's, of the least fair round.
	 * @param benchmark the benchmark's name
	 * @param peer the peer
	 * @return a table cell: the ratio with two decimals, or {@code -}
	 */
	String fairness(String benchmark, String peer) {
		return Markdown.fairness(extra(benchmark, peer, "slowestInstance"), extra(benchmark, peer, "fastestInstance"));
	}

}
