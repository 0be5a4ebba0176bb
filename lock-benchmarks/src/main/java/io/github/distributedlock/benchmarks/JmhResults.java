package io.github.distributedlock.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
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
 * The JMH runs of a runner ({@link BenchmarkRunner}, {@link SemaphoreRunner}) over its rounds: runs one
 * benchmark pass in a fork on the Redis under test, keeps every round's results by benchmark and peer, merges
 * the forks' {@link Extras}, and gives the medians the reports show. Not thread-safe: the runner's main thread
 * uses it.
 */
final class JmhResults {

	private final boolean quick;

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
		this.quick = quick;
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
			.warmupIterations(this.quick ? 1 : 3)
			.warmupTime(TimeValue.seconds(1))
			.measurementIterations(this.quick ? 1 : 3)
			.measurementTime(TimeValue.seconds(this.quick ? 1 : 2))
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
	 * The median throughput over every measurement iteration of every round.
	 * @param benchmark the benchmark's name
	 * @param peer the peer
	 * @return ops/s, {@code NaN} when it did not run
	 */
	double ops(String benchmark, String peer) {
		List<Double> scores = new ArrayList<>();
		for (IterationResult iteration : iterations(benchmark, peer)) {
			scores.add(iteration.getPrimaryResult().getScore());
		}
		return median(scores);
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
		for (IterationResult iteration : iterations(benchmark, peer)) {
			Result<?> secondary = iteration.getSecondaryResults().get(method);
			if (secondary != null) {
				scores.add(secondary.getScore());
			}
		}
		return median(scores);
	}

	private List<IterationResult> iterations(String benchmark, String peer) {
		List<IterationResult> iterations = new ArrayList<>();
		for (RunResult result : this.throughput.getOrDefault(benchmark, Map.of()).getOrDefault(peer, List.of())) {
			for (BenchmarkResult fork : result.getBenchmarkResults()) {
				iterations.addAll(fork.getIterationResults());
			}
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
		List<Double> values = new ArrayList<>();
		for (RunResult result : this.latency.getOrDefault(benchmark, Map.of()).getOrDefault(peer, List.of())) {
			values.add(result.getPrimaryResult().getStatistics().getPercentile(p));
		}
		return median(values);
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

	private static double median(List<Double> values) {
		if (values.isEmpty()) {
			return Double.NaN;
		}
		List<Double> sorted = new ArrayList<>(values);
		Collections.sort(sorted);
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

}
