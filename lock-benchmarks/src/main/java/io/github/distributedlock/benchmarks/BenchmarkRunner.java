package io.github.distributedlock.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.annotations.Mode;

/**
 * Runs every workload against every peer on one Redis (given by {@code -Dbench.redis.port}), and writes a
 * Markdown report with the ratios. Arguments: the report's path. {@code -Dbench.quick=true} shortens the
 * iterations for a smoke run.
 */
public final class BenchmarkRunner {

	private static final boolean QUICK = Boolean.getBoolean("bench.quick");

	/**
	 * How often every workload runs against every peer, the peers in alternating order: on a shared machine
	 * the speed drifts for seconds at a time, and one round would charge a slow stretch to one peer alone.
	 */
	private static final int ROUNDS = Integer.getInteger("bench.rounds", QUICK ? 1 : 2);

	/**
	 * The benchmarks to run ({@code -Dbench.workloads}, comma-separated names such as {@code w1OwnKey}); empty
	 * runs them all. The command count runs always.
	 */
	private static final List<String> WORKLOADS = names(System.getProperty("bench.workloads", ""));

	/**
	 * The peers to run ({@code -Dbench.peers}, comma-separated, such as {@code ours,floor}); empty runs them all.
	 */
	private static final List<String> PEERS = names(System.getProperty("bench.peers", ""));

	private final Map<String, Map<String, List<RunResult>>> throughput = new LinkedHashMap<>();

	private final Map<String, Map<String, List<RunResult>>> latency = new LinkedHashMap<>();

	/** The forked JVMs' {@link Extras}, merged over the rounds: benchmark, peer, name, value. */
	private final Map<String, Map<String, Map<String, Long>>> extras = new LinkedHashMap<>();

	private BenchmarkRunner() {
	}

	private static List<String> names(String commaSeparated) {
		return Arrays.stream(commaSeparated.split(",")).map(String::trim).filter((name) -> !name.isEmpty()).toList();
	}

	public static void main(String[] args) throws Exception {
		Path report = Path.of((args.length > 0) ? args[0] : "RESULTS.md");
		new BenchmarkRunner().runAll(report);
	}

	private void runAll(Path report) throws Exception {
		List<String> all = LockPeer.ALL;
		List<String> reentrant = List.of("ours", "redisson", "si-spin", "si-pubsub");
		run("w1OwnKey", all, Mode.Throughput, this.throughput);
		run("w1OwnKey", all, Mode.SampleTime, this.latency);
		run("w2OwnKeys16Threads", all, Mode.Throughput, this.throughput);
		run("w3OneKey8Threads", all, Mode.Throughput, this.throughput);
		run("w3OneKey8Threads", all, Mode.SampleTime, this.latency);
		run("w3xOneKey8Instances", all, Mode.Throughput, this.throughput);
		run("w3mOneKey2Instances4ThreadsEach", all, Mode.Throughput, this.throughput);
		run("w4Reentrant", reentrant, Mode.Throughput, this.throughput);
		run("w5ReadWrite", List.of("ours", "redisson"), Mode.Throughput, this.throughput);
		run("w6", List.of(), Mode.Throughput, this.throughput);
		Map<String, long[]> commands = new LinkedHashMap<>();
		for (String peer : all) {
			if (PEERS.isEmpty() || PEERS.contains(peer)) {
				commands.put(peer, commandsPerPair(peer));
			}
		}
		Files.writeString(report, markdown(commands), StandardCharsets.UTF_8);
		System.out.println("Wrote " + report.toAbsolutePath());
	}

	private void run(String benchmark, List<String> peers, Mode mode, Map<String, Map<String, List<RunResult>>> into)
			throws Exception {
		if (!WORKLOADS.isEmpty() && !WORKLOADS.contains(benchmark)) {
			return;
		}
		for (int round = 0; round < ROUNDS; round++) {
			List<String> order = new ArrayList<>(peers);
			if (!PEERS.isEmpty()) {
				order.retainAll(PEERS);
			}
			if (round % 2 == 1) {
				Collections.reverse(order);
			}
			if (peers.isEmpty()) {
				runRound(benchmark, null, mode, into);
			}
			for (String peer : order) {
				runRound(benchmark, peer, mode, into);
			}
		}
	}

	/** Runs one benchmark (every method it matches) for one peer, or for none ({@code peer == null}). */
	private void runRound(String benchmark, @Nullable String peer, Mode mode,
			Map<String, Map<String, List<RunResult>>> into) throws Exception {
		if (peer != null) {
			Extras.clear(benchmark, peer);
		}
		ChainedOptionsBuilder options = new OptionsBuilder().include("\\." + benchmark)
			.mode(mode)
			.timeUnit((mode == Mode.SampleTime) ? TimeUnit.MICROSECONDS : TimeUnit.SECONDS)
			.forks(1)
			.warmupIterations(QUICK ? 1 : 3)
			.warmupTime(TimeValue.seconds(1))
			.measurementIterations(QUICK ? 1 : 3)
			.measurementTime(TimeValue.seconds(QUICK ? 1 : 2))
			.shouldFailOnError(true)
			.jvmArgsAppend("-Xmx1g", "-Dbench.redis.host=" + System.getProperty("bench.redis.host", "127.0.0.1"),
					"-Dbench.redis.port=" + Integer.getInteger("bench.redis.port", 6379),
					"-Dbench.extras.dir=" + System.getProperty("bench.extras.dir", "target/bench-extras"));
		if (peer != null) {
			options.param("peer", peer);
		}
		Collection<RunResult> results = new Runner(options.build()).run();
		for (RunResult result : results) {
			String name = LockBenchmarks.name(result.getParams());
			String resultPeer = (peer != null) ? peer : "ours";
			into.computeIfAbsent(name, (key) -> new LinkedHashMap<>())
				.computeIfAbsent(resultPeer, (key) -> new ArrayList<>())
				.add(result);
			if (peer != null) {
				mergeExtras(name, peer);
			}
		}
	}

	/**
	 * Adds a round's extras to those of earlier rounds: violations add up, the writer's longest wait is the
	 * longest of all, and the fairness of the least fair round is kept.
	 */
	private void mergeExtras(String benchmark, String peer) {
		Map<String, Long> merged = this.extras.computeIfAbsent(benchmark, (key) -> new LinkedHashMap<>())
			.computeIfAbsent(peer, (key) -> new LinkedHashMap<>());
		Properties round = Extras.read(benchmark, peer);
		for (String name : round.stringPropertyNames()) {
			long value = Long.parseLong(round.getProperty(name));
			if (name.startsWith("violations")) {
				merged.merge(name, value, Long::sum);
			}
			else if (name.equals("longestWriterWaitMicros")) {
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
	 * Counts Redis commands for 1000 ({@code -Dbench.commands.pairs}) uncontended lock+unlock pairs: requests the
	 * client sent (script calls and other top-level commands), commands run inside scripts, the pairs, and the
	 * microseconds Redis spent in the scripts.
	 */
	private static long[] commandsPerPair(String peerName) throws Exception {
		int pairs = Integer.getInteger("bench.commands.pairs", 1000);
		RedisClient redis = RedisClient.create(RedisURI.create(System.getProperty("bench.redis.host", "127.0.0.1"),
				Integer.getInteger("bench.redis.port", 6379)));
		try (StatefulRedisConnection<String, String> admin = redis.connect(); LockPeer peer = LockPeer.create(peerName)) {
			Lock lock = peer.lock("bench:commands");
			lock.lock();
			lock.unlock();
			admin.sync().configResetstat();
			for (int i = 0; i < pairs; i++) {
				lock.lock();
				lock.unlock();
			}
			long[] counted = commandStats(admin.sync().info("commandstats"));
			long requests = counted[0];
			long inside = counted[1];
			long scriptMicros = counted[2];
			return new long[] { requests, inside, pairs, scriptMicros };
		}
		finally {
			redis.shutdown();
		}
	}

	/**
	 * Reads {@code INFO commandstats} (since the last {@code CONFIG RESETSTAT}): the requests clients sent (script
	 * calls and other top-level commands; the INFO and CONFIG RESETSTAT of the count itself left out), the
	 * commands run inside scripts, and the microseconds Redis spent in scripts.
	 * @param stats the reply of {@code INFO commandstats}
	 * @return requests, commands inside scripts, script microseconds
	 */
	static long[] commandStats(String stats) {
		long requests = 0;
		long inside = 0;
		long scriptMicros = 0;
		for (String line : stats.split("\r?\n")) {
			if (!line.startsWith("cmdstat_")) {
				continue;
			}
			String command = line.substring("cmdstat_".length(), line.indexOf(':'));
			long calls = Long.parseLong(line.replaceAll("^[^:]+:calls=(\\d+),.*$", "$1"));
			if (command.equals("info") || command.equals("config|resetstat")) {
				continue;
			}
			if (command.startsWith("eval") || command.startsWith("fcall")) {
				scriptMicros += Long.parseLong(line.replaceAll("^.*,usec=(\\d+),.*$", "$1"));
			}
			if (command.startsWith("eval") || command.startsWith("fcall") || command.equals("ping")
					|| command.contains("subscribe") || command.equals("hello") || command.startsWith("client")) {
				requests += calls;
			}
			else {
				inside += calls;
			}
		}
		return new long[] { requests, inside, scriptMicros };
	}

	/** The median throughput over every measurement iteration of every round. */
	private double ops(String benchmark, String peer) {
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

	/** The median of a group benchmark's method's throughput over every measurement iteration of every round. */
	private double secondary(String benchmark, String peer, String method) {
		List<Double> scores = new ArrayList<>();
		for (RunResult result : this.throughput.getOrDefault(benchmark, Map.of()).getOrDefault(peer, List.of())) {
			for (BenchmarkResult fork : result.getBenchmarkResults()) {
				for (IterationResult iteration : fork.getIterationResults()) {
					Result<?> secondary = iteration.getSecondaryResults().get(method);
					if (secondary != null) {
						scores.add(secondary.getScore());
					}
				}
			}
		}
		return median(scores);
	}

	/** The median over the rounds of each round's percentile {@code p}. */
	private double percentile(String benchmark, String peer, double p) {
		List<Double> values = new ArrayList<>();
		for (RunResult result : this.latency.getOrDefault(benchmark, Map.of()).getOrDefault(peer, List.of())) {
			values.add(result.getPrimaryResult().getStatistics().getPercentile(p));
		}
		return median(values);
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

	private String extra(String benchmark, String peer, String name) {
		Long value = this.extras.getOrDefault(benchmark, Map.of()).getOrDefault(peer, Map.of()).get(name);
		return (value != null) ? Long.toString(value) : "-";
	}

	private String markdown(Map<String, long[]> commands) {
		StringBuilder md = new StringBuilder();
		md.append("# Benchmark results\n\n");
		md.append("Produced by `lock-benchmarks/run.sh` on ").append(LocalDate.now()).append(": ")
			.append(Runtime.getRuntime().availableProcessors()).append(" cores, ")
			.append(System.getProperty("java.vm.name")).append(' ').append(System.getProperty("java.version"))
			.append(", one loopback `redis-server`. JMH, ").append(ROUNDS)
			.append((ROUNDS == 1) ? " round" : " rounds (the peers in alternating order)").append(" of 1 fork per peer, ")
			.append(QUICK ? "1 x 1 s warm-up, 1 x 1 s measurement (a quick run: wide error)" : "3 x 1 s warm-up, 3 x 2 s measurement")
			.append(". Throughputs are the median of all measurement iterations of all rounds; latencies the median of ")
			.append("the rounds' percentiles; violations add up over the rounds, and the least fair round is shown. ")
			.append("Every number is from this one run; compare ratios, not absolute values.\n\n");
		md.append("Peers: **ours** (this library, `getLock()`), **redisson** (`RLock`/`RReadWriteLock` 4.7.0), ")
			.append("**si-spin** / **si-pubsub** (Spring Integration `RedisLockRegistry` 7.1.0, SPIN_LOCK / PUB_SUB_LOCK), ")
			.append("**floor** (raw Lettuce: one EVALSHA `SET NX PX` to acquire, one compare-and-delete to release; ")
			.append("a blocked `lock()` retries every 50 µs).\n\n");

		md.append("## W1, W2: uncontended lock+unlock pairs\n\n");
		md.append("| peer | W1 pairs/s (1 thread) | x floor | W1 p50 µs | W1 p99 µs | W2 pairs/s (16 threads, own keys) | x floor |\n");
		md.append("|---|---:|---:|---:|---:|---:|---:|\n");
		for (String peer : LockPeer.ALL) {
			md.append(row(peer, fmt(ops("w1OwnKey", peer)), ratio(ops("w1OwnKey", peer), ops("w1OwnKey", "floor")),
					fmt(percentile("w1OwnKey", peer, 50)), fmt(percentile("w1OwnKey", peer, 99)),
					fmt(ops("w2OwnKeys16Threads", peer)),
					ratio(ops("w2OwnKeys16Threads", peer), ops("w2OwnKeys16Threads", "floor"))));
		}

		md.append("\n## W3, W3x: one key, 8 threads (blocking `lock()`, tiny critical section)\n\n");
		md.append("W3: 8 threads of one client. W3x: 8 clients (as 8 application instances), one thread each. ")
			.append("`violations` counts a thread finding another inside: it must be 0.\n\n");
		md.append("| peer | W3 acq/s | x floor | W3 p50 µs | W3 p99 µs | W3 violations | W3x acq/s | x floor | W3x slowest/fastest instance | W3x violations |\n");
		md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (String peer : LockPeer.ALL) {
			String fairness = fairness("w3xOneKey8Instances", peer);
			md.append(row(peer, fmt(ops("w3OneKey8Threads", peer)),
					ratio(ops("w3OneKey8Threads", peer), ops("w3OneKey8Threads", "floor")),
					fmt(percentile("w3OneKey8Threads", peer, 50)), fmt(percentile("w3OneKey8Threads", peer, 99)),
					extra("w3OneKey8Threads", peer, "violations"), fmt(ops("w3xOneKey8Instances", peer)),
					ratio(ops("w3xOneKey8Instances", peer), ops("w3xOneKey8Instances", "floor")), fairness,
					extra("w3xOneKey8Instances", peer, "violationsAcrossInstances")));
		}
		md.append("\nW3 p50/p99 are of the whole op (wait, tiny critical section, release): the time to acquire ")
			.append("plus one release round trip.\n");

		md.append("\n## W3m: one key, 2 instances x 4 threads (not a target: the usual case in production)\n\n");
		md.append("| peer | acq/s | x floor | slower/faster instance | violations |\n|---|---:|---:|---:|---:|\n");
		for (String peer : LockPeer.ALL) {
			md.append(row(peer, fmt(ops("w3mOneKey2Instances4ThreadsEach", peer)),
					ratio(ops("w3mOneKey2Instances4ThreadsEach", peer), ops("w3mOneKey2Instances4ThreadsEach", "floor")),
					fairness("w3mOneKey2Instances4ThreadsEach", peer),
					extra("w3mOneKey2Instances4ThreadsEach", peer, "violationsAcrossInstances")));
		}

		md.append("\n## W4: reentrant pairs (lock, lock, unlock, unlock)\n\n");
		md.append("| peer | ops/s | x redisson |\n|---|---:|---:|\n");
		for (String peer : List.of("ours", "redisson", "si-spin", "si-pubsub")) {
			md.append(row(peer, fmt(ops("w4Reentrant", peer)), ratio(ops("w4Reentrant", peer), ops("w4Reentrant", "redisson"))));
		}

		md.append("\n## W5: read/write, 8 reader threads + 1 writer on one lock\n\n");
		md.append("| peer | reads/s | writes/s | writer's longest wait | violations |\n|---|---:|---:|---:|---:|\n");
		for (String peer : List.of("ours", "redisson")) {
			String wait = extra("w5ReadWrite", peer, "longestWriterWaitMicros");
			md.append(row(peer, fmt(secondary("w5ReadWrite", peer, "reader")), fmt(secondary("w5ReadWrite", peer, "writer")),
					wait.equals("-") ? "-" : fmt(Long.parseLong(wait) / 1000.0) + " ms",
					extra("w5ReadWrite", peer, "violations")));
		}

		md.append("\n## W6: the annotation's overhead (ours, 1 thread, uncontended)\n\n");
		md.append("| path | ops/s | x template.execute |\n|---|---:|---:|\n");
		for (String path : List.of("w6Annotation", "w6AnnotationObserved", "w6TemplateExecute", "w6GetLock")) {
			md.append(row(path, fmt(ops(path, "ours")), ratio(ops(path, "ours"), ops("w6TemplateExecute", "ours"))));
		}
		double plainNanos = 1e9 / ops("w6StubAnnotation", "ours");
		double observedNanos = 1e9 / ops("w6StubAnnotationObserved", "ours");
		md.append("\nWithout a store (`StubLockClient`), a call through the annotation takes ").append(fmt(plainNanos))
			.append(" ns, and ").append(fmt(observedNanos))
			.append(" ns with the meter and observation registries: observability costs each call about ")
			.append(fmt(observedNanos - plainNanos)).append(" ns, ")
			.append(fmt(100 * (observedNanos - plainNanos) * ops("w6Annotation", "ours") / 1e9))
			.append(" % of a call on Redis.\n");

		md.append(targets(commands));

		md.append("\n## Redis commands per uncontended lock+unlock pair\n\n");
		md.append("From `INFO commandstats` over ").append(commands.values().iterator().next()[2])
			.append(" pairs: requests the client sent (EVAL/EVALSHA and other top-level commands), commands run inside those scripts, ")
			.append("and the scripts' time in Redis (`usec`, which drifts far less with the machine than round trips do).\n\n");
		md.append("| peer | client requests | commands inside scripts | script µs in Redis |\n|---|---:|---:|---:|\n");
		commands.forEach((peer, counts) -> md.append(row(peer, fmt((double) counts[0] / counts[2]),
				fmt((double) counts[1] / counts[2]), fmt((double) counts[3] / counts[2]))));
		return md.toString();
	}

	/**
	 * The targets of the benchmark issue, checked against this run.
	 */
	private String targets(Map<String, long[]> commands) {
		double bestSiW3 = Math.max(ops("w3OneKey8Threads", "si-spin"), ops("w3OneKey8Threads", "si-pubsub"));
		double bestSiW2 = Math.max(ops("w2OwnKeys16Threads", "si-spin"), ops("w2OwnKeys16Threads", "si-pubsub"));
		double bestSiW4 = Math.max(ops("w4Reentrant", "si-spin"), ops("w4Reentrant", "si-pubsub"));
		double p99 = percentile("w3OneKey8Threads", "ours", 99);
		double peersP99 = Math.min(Math.min(percentile("w3OneKey8Threads", "redisson", 99),
				percentile("w3OneKey8Threads", "si-spin", 99)), percentile("w3OneKey8Threads", "si-pubsub", 99));
		String slowest = extra("w3xOneKey8Instances", "ours", "slowestInstance");
		String fastest = extra("w3xOneKey8Instances", "ours", "fastestInstance");
		double fairness = (slowest.equals("-") || fastest.equals("-")) ? Double.NaN
				: Double.parseDouble(slowest) / Double.parseDouble(fastest);
		String wait = extra("w5ReadWrite", "ours", "longestWriterWaitMicros");
		double waitMillis = wait.equals("-") ? Double.NaN : Long.parseLong(wait) / 1000.0;
		long[] ourCommands = commands.get("ours");
		StringBuilder md = new StringBuilder("\n## Targets\n\n| target | measured | met |\n|---|---|:-:|\n");
		target(md, "W1 >= 0.9x floor", ops("w1OwnKey", "ours") / ops("w1OwnKey", "floor"), 0.9, true);
		target(md, "W1 >= 1.15x Redisson", ops("w1OwnKey", "ours") / ops("w1OwnKey", "redisson"), 1.15, true);
		target(md, "W2 >= 0.8x floor", ops("w2OwnKeys16Threads", "ours") / ops("w2OwnKeys16Threads", "floor"), 0.8, true);
		target(md, "W2 >= 2x Redisson", ops("w2OwnKeys16Threads", "ours") / ops("w2OwnKeys16Threads", "redisson"), 2, true);
		target(md, "W2 >= 1.0x the better Spring Integration mode", ops("w2OwnKeys16Threads", "ours") / bestSiW2, 1, true);
		target(md, "W3 >= 1.0x the better Spring Integration mode", ops("w3OneKey8Threads", "ours") / bestSiW3, 1, true);
		target(md, "W3 >= 1.2x Redisson", ops("w3OneKey8Threads", "ours") / ops("w3OneKey8Threads", "redisson"), 1.2, true);
		target(md, "W3 p99 below every peer's (ratio to the lowest peer p99)", p99 / peersP99, 1, false);
		target(md, "W3x >= 2x Redisson", ops("w3xOneKey8Instances", "ours") / ops("w3xOneKey8Instances", "redisson"), 2, true);
		target(md, "W3x slowest instance >= 0.5x the fastest", fairness, 0.5, true);
		target(md, "W4 >= 1.0x the better Spring Integration mode", ops("w4Reentrant", "ours") / bestSiW4, 1, true);
		target(md, "W5 >= 50 writes/s while 8 readers loop", secondary("w5ReadWrite", "ours", "writer"), 50, true);
		target(md, "W5 writer's longest wait < 100 ms", waitMillis, 100, false);
		target(md, "W5 reads/s >= 0.8x Redisson's", secondary("w5ReadWrite", "ours", "reader")
				/ secondary("w5ReadWrite", "redisson", "reader"), 0.8, true);
		target(md, "W6 annotation costs < 5 % over template.execute (ratio of ops/s, >= 0.95)",
				ops("w6Annotation", "ours") / ops("w6TemplateExecute", "ours"), 0.95, true);
		target(md, "W6 with meter and observation registries costs < 10 % over without (ratio of ops/s, >= 0.90)",
				ops("w6AnnotationObserved", "ours") / ops("w6Annotation", "ours"), 0.90, true);
		target(md, "2 client commands per uncontended pair",
				(ourCommands == null) ? Double.NaN : (double) ourCommands[0] / ourCommands[2], 2, false);
		return md.toString();
	}

	/** The slowest instance's acquisitions over the fastest's, formatted, or "-". */
	private String fairness(String benchmark, String peer) {
		String slowest = extra(benchmark, peer, "slowestInstance");
		String fastest = extra(benchmark, peer, "fastestInstance");
		return (slowest.equals("-") || fastest.equals("-") || fastest.equals("0")) ? "-"
				: String.format(Locale.ROOT, "%.2f", Double.parseDouble(slowest) / Double.parseDouble(fastest));
	}

	private static void target(StringBuilder md, String target, double measured, double bound, boolean atLeast) {
		boolean met = !Double.isNaN(measured) && (atLeast ? measured >= bound : measured <= bound);
		md.append(row(target, fmt(measured), met ? "yes" : "**no**"));
	}

	private static String row(String... cells) {
		return "| " + String.join(" | ", cells) + " |\n";
	}

	private static String fmt(double value) {
		if (Double.isNaN(value)) {
			return "-";
		}
		return (value >= 100) ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%.2f", value);
	}

	private static String ratio(double value, double base) {
		return (Double.isNaN(value) || Double.isNaN(base) || base == 0) ? "-" : String.format(Locale.ROOT, "%.2f", value / base);
	}


}
