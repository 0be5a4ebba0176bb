package io.github.distributedlock.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import ch.qos.logback.classic.Level;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code run.sh}: the headline run. Measures, on the Redis of {@code -Dbench.redis.port} and on servers of its own,
 * in rounds that alternate the peers' order: the lock workloads W1 to W5 of every peer ({@link LockWorkloads}),
 * the semaphore's S1 and S2 against Redisson ({@link SemaphoreRunner}), the uncontended pair's cost in turns, with
 * the floor with a fencing token ({@link UncontendedCost}), Redlock on 3 and 5 nodes against RedissonRedLock
 * ({@link RedlockBenchmark}) and classic against sharded notifications on a 3-primary cluster
 * ({@link ClusterNotificationRunner}); then draws the charts ({@link ResultsCharts}) and writes RESULTS.md
 * ({@link ResultsPage}). Arguments: the page's path; the charts go to {@code charts/} beside it.
 * <p>
 * System properties: {@code bench.quick} (one round of short iterations: a check of the tooling),
 * {@code bench.rounds} (3), {@code bench.sections} (comma-separated, of {@code locks,semaphores,cost,redlock,cluster};
 * empty: all), {@code bench.workloads} and {@code bench.peers} (see {@link LockWorkloads}), {@code bench.started}
 * (when run.sh started, epoch seconds, so the duration includes the build).
 */
public final class ResultsRunner {

	/** The charts' file names, in the page's order. */
	static final List<String> CHARTS = List.of("throughput.png", "latency.png", "cost.png");

	/** The peers of the cost section: the floor with and without a fencing token, this library's scripts alone. */
	private static final List<String> COST_PEERS = List.of("floor", "token-floor", "ours-scripts", "ours", "redisson",
			"si-spin", "si-pubsub");

	private static final boolean QUICK = Boolean.getBoolean("bench.quick");

	private static final int ROUNDS = Integer.getInteger("bench.rounds", QUICK ? 1 : 3);

	private static final List<String> SECTIONS = names(System.getProperty("bench.sections", ""));

	private static final List<String> PEERS = names(System.getProperty("bench.peers", ""));

	private ResultsRunner() {
	}

	/**
	 * Runs every section, draws the charts and writes the page.
	 * @param args the page's path (default {@code lock-benchmarks/RESULTS.md})
	 * @throws Exception if a section fails
	 */
	public static void main(String[] args) throws Exception {
		Path page = Path.of((args.length > 0) ? args[0] : "lock-benchmarks/RESULTS.md").toAbsolutePath();
		Instant started = Instant.ofEpochSecond(Long.getLong("bench.started", Instant.now().getEpochSecond()));
		String loadAtStart = uptime();
		String redisVersion;
		try (RedisAdmin admin = RedisAdmin.connect()) {
			redisVersion = admin.sync().info("server").lines()
				.filter((line) -> line.startsWith("redis_version:"))
				.map((line) -> line.substring("redis_version:".length()).trim())
				.findFirst()
				.orElse("?");
		}
		Map<String, Duration> took = new LinkedHashMap<>();
		LockWorkloads.LockRun locks = timed("locks", took, () -> new LockWorkloads(jmh(), ROUNDS,
				names(System.getProperty("bench.workloads", "")), PEERS).run());
		JmhResults semaphores = timed("semaphores", took, ResultsRunner::semaphores);
		// the JMH forks have ended: this JVM runs nothing else while it measures the process's CPU time
		RunResults.Cost cost = timed("cost", took, ResultsRunner::cost);
		// the nodes' startup WARN about persistence (none here) would repeat for every client
		ChaosRunner.logOnly(Level.ERROR);
		RedlockBenchmark.Settings settings = new RedlockBenchmark.Settings(ROUNDS, 4, QUICK ? 1 : 2, QUICK ? 1 : 3,
				QUICK ? 200 : 1000);
		List<RedlockBenchmark.NodeRun> redlock = timed("redlock", took,
				() -> List.of(RedlockBenchmark.measure(3, settings), RedlockBenchmark.measure(5, settings)));
		List<ClusterNotificationRunner.ModeRun> cluster = timed("cluster", took,
				() -> ClusterNotificationRunner.measure(3, QUICK ? 10 : 40, QUICK ? 1 : 4));
		String loadAtEnd = uptime();
		RunResults.Facts facts = new RunResults.Facts(ZonedDateTime.ofInstant(started, ZoneId.of("UTC")),
				Duration.between(started, Instant.now()), took, Markdown.machine(), redisVersion, loadAtStart,
				loadAtEnd, ROUNDS, QUICK);
		RunResults run = new RunResults(facts, locks, semaphores, cost, redlock, cluster);
		List<String> charts = draw(run, page.getParent().resolve("charts"));
		Files.writeString(page, ResultsPage.markdown(run, charts), StandardCharsets.UTF_8);
		System.out.println("Wrote " + page + " and " + charts + "; the run took " + facts.took().toSeconds() + " s");
	}

	/** JMH forks of 1 x 1 s warm-up and 2 x 1 s measurement (quick: 1 x 1 s), as many as fit in the quarter hour. */
	private static JmhResults jmh() {
		return new JmhResults(1, QUICK ? 1 : Integer.getInteger("bench.iterations", 2),
				TimeValue.milliseconds(Integer.getInteger("bench.iteration.ms", 1000)));
	}

	private static JmhResults semaphores() throws Exception {
		try (RedisAdmin admin = RedisAdmin.connect()) {
			return new SemaphoreRunner(jmh(), admin).rounds(ROUNDS, "s[12]", List.of(Mode.SampleTime));
		}
	}

	private static RunResults.Cost cost() throws Exception {
		List<String> peers = new ArrayList<>(COST_PEERS);
		if (!PEERS.isEmpty()) {
			peers.retainAll(PEERS);
		}
		int pairs = QUICK ? 1_000 : Integer.getInteger("bench.cost.pairs", 5_000);
		return new RunResults.Cost(UncontendedCost.measure(peers, ROUNDS, pairs), pairs);
	}

	private static List<String> draw(RunResults run, Path folder) throws IOException {
		List<String> drawn = new ArrayList<>();
		String rounds = (run.facts().rounds() == 1) ? "1 round" : run.facts().rounds() + " rounds";
		List<List<ResultsCharts.Figure>> figures = List.of(ResultsFigures.throughput(run), ResultsFigures.latency(run),
				ResultsFigures.cost(run));
		List<ResultsCharts.Chart> charts = List.of(
				new ResultsCharts.Chart("Throughput per peer and workload (higher is better)",
						rounds + "; bar: median, dot: one round; S1, S2 against RPermitExpirableSemaphore, Redlock against RedissonRedLock",
						"operations per second", false, false),
				new ResultsCharts.Chart("Latency of one operation: 50th and 99th percentile (lower is better)",
						rounds + " of JMH sample time; bar: median over the rounds, dot: one round's percentile",
						"microseconds (log scale)", true, false),
				new ResultsCharts.Chart("What one uncontended lock+unlock pair costs (lower is better)",
						rounds + ", the Redis-store peers taking turns of " + UncontendedCost.BLOCK
								+ " pairs in one JVM, Redlock on 3 and 5 nodes of its own",
						"microseconds per pair", false, true));
		for (int i = 0; i < CHARTS.size(); i++) {
			if (!figures.get(i).isEmpty()) {
				ResultsCharts.draw(folder.resolve(CHARTS.get(i)), charts.get(i), figures.get(i), 1200,
						(i == 2) ? 700 : 600);
				drawn.add(folder.getFileName() + "/" + CHARTS.get(i));
			}
		}
		return drawn;
	}

	/** One section of the run. */
	@FunctionalInterface
	private interface Section<T> {

		T run() throws Exception;

	}

	/** Runs a section unless {@code -Dbench.sections} leaves it out, and notes how long it took. */
	private static <T> @Nullable T timed(String name, Map<String, Duration> took, Section<T> section) throws Exception {
		if (!SECTIONS.isEmpty() && !SECTIONS.contains(name)) {
			return null;
		}
		long start = System.nanoTime();
		T result = section.run();
		took.put(name, Duration.ofNanos(System.nanoTime() - start));
		System.out.println("[results] " + name + " took " + took.get(name).toSeconds() + " s; " + uptime());
		return result;
	}

	private static String uptime() throws IOException, InterruptedException {
		Process uptime = new ProcessBuilder("uptime").redirectErrorStream(true).start();
		String output = new String(uptime.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
		uptime.waitFor();
		return output;
	}

	private static List<String> names(@Nullable String commaSeparated) {
		return (commaSeparated == null) ? List.of()
				: Arrays.stream(commaSeparated.split(",")).map(String::trim).filter((name) -> !name.isEmpty()).toList();
	}

}
