package io.github.distributedlock.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import ch.qos.logback.classic.Level;

/**
 * {@code run.sh redlock}: this library's Redlock store ({@code distributed-lock.store=redlock}, built as its
 * auto-configuration builds it) against Redisson's {@code RedissonRedLock}, on N {@code redis-server} processes
 * of the run's own (3 and 5 by default), in rounds that alternate the peers' order: uncontended lock+unlock
 * pairs per second with their p50 and p99 latency, one key contended by two clients' threads, and (once per
 * peer, after the rounds) the Redis commands per uncontended pair on each node from {@code INFO commandstats}.
 * Writes a Markdown report ({@link RedlockReport}) with the ratio ours/Redisson per round and its spread.
 * Arguments: the report's path. System properties: {@code bench.redlock.nodes} ({@code 3,5}),
 * {@code bench.redlock.rounds} (5), {@code bench.redlock.seconds} (measured seconds per measurement, 20),
 * {@code bench.redlock.warmup} (seconds, 10), {@code bench.redlock.threads} (contending threads per client, 4),
 * {@code bench.redlock.pairs} (pairs counted, 1000), {@code bench.redlock.frozen} ({@code true}: every contended
 * measurement runs with the last node frozen by {@code kill -STOP}, from after the clients connected to its end,
 * then {@code kill -CONT}). The nodes are emptied before each measurement.
 */
public final class RedlockBenchmark {

	/** Whether the contended measurements run with the last node frozen ({@code kill -STOP}) throughout. */
	static final boolean FROZEN = Boolean.getBoolean("bench.redlock.frozen");

	private RedlockBenchmark() {
	}

	/**
	 * Runs every round on every node count, the counts, and writes the report.
	 * @param args the report's path (default {@code lock-benchmarks/target/redlock.md})
	 * @throws Exception if a node could not be started or a measurement failed
	 */
	public static void main(String[] args) throws Exception {
		// the nodes' startup WARN about persistence (none here) would repeat for every client
		ChaosRunner.logOnly(Level.ERROR);
		Path report = Path.of((args.length > 0) ? args[0] : "lock-benchmarks/target/redlock.md");
		List<Integer> nodeCounts = Arrays.stream(System.getProperty("bench.redlock.nodes", "3,5").split(","))
			.map(String::trim)
			.filter((s) -> !s.isEmpty())
			.map(Integer::valueOf)
			.toList();
		Settings settings = new Settings(Integer.getInteger("bench.redlock.rounds", 5),
				Integer.getInteger("bench.redlock.threads", 4), Long.getLong("bench.redlock.warmup", 10),
				Long.getLong("bench.redlock.seconds", 20), Integer.getInteger("bench.redlock.pairs", 1000));
		String load = Files.readString(Path.of("/proc/loadavg")).trim();
		RedlockReport markdown = new RedlockReport(settings);
		for (int n : nodeCounts) {
			NodeRun run = measure(n, settings);
			markdown.add(n, run.rounds(), run.counts());
		}
		String text = markdown.markdown(load, Files.readString(Path.of("/proc/loadavg")).trim());
		Files.createDirectories(report.toAbsolutePath().getParent());
		Files.writeString(report, text, StandardCharsets.UTF_8);
		System.out.println(text);
		System.out.println("Wrote " + report.toAbsolutePath());
	}

	/**
	 * How a node count is measured.
	 * @param rounds how many rounds, the peers in alternating order
	 * @param threads contending threads per client
	 * @param warmUpSeconds seconds of warm-up before each measurement
	 * @param seconds seconds per measurement
	 * @param pairs the uncontended pairs whose commands are counted
	 */
	record Settings(int rounds, int threads, long warmUpSeconds, long seconds, int pairs) {
	}

	/**
	 * What one node count measured.
	 * @param nodes N
	 * @param settings how
	 * @param rounds every peer's result of every round, in the order they ran
	 * @param counts each peer's command counts per node
	 */
	record NodeRun(int nodes, Settings settings, List<RedlockReport.Round> rounds,
			Map<String, List<CommandStats>> counts) {

		/**
		 * The ratio ours / Redisson of a figure, per round.
		 * @param figure the figure of a round
		 * @return the ratios' spread over the rounds
		 */
		Spread ratio(ToDoubleFunction<RedlockReport.Round> figure) {
			return Spread.ratios(figures("ours", figure), figures("redisson", figure));
		}

		/**
		 * A figure of one peer, per round.
		 * @param peer {@code ours} or {@code redisson}
		 * @param figure the figure of a round
		 * @return one value per round, in round order
		 */
		List<Double> figures(String peer, ToDoubleFunction<RedlockReport.Round> figure) {
			return this.rounds.stream()
				.filter((round) -> round.peer().equals(peer))
				.sorted(Comparator.comparingInt(RedlockReport.Round::round))
				.map(figure::applyAsDouble)
				.toList();
		}

	}

	/**
	 * Starts N nodes, runs the rounds on them with the peers in alternating order, then counts each peer's
	 * commands per uncontended pair.
	 * @param n the nodes
	 * @param settings how
	 * @return every round's results and the counts
	 * @throws InterruptedException if interrupted while measuring
	 */
	static NodeRun measure(int n, Settings settings) throws InterruptedException {
		try (RedlockNodes nodes = new RedlockNodes(n)) {
			List<RedlockReport.Round> results = new ArrayList<>();
			List<String> order = new ArrayList<>(RedlockPeer.ALL);
			for (int round = 1; round <= settings.rounds(); round++) {
				for (String peer : order) {
					results.add(measure(nodes, round, peer, settings));
				}
				Collections.reverse(order);
			}
			Map<String, List<CommandStats>> counts = new LinkedHashMap<>();
			for (String name : RedlockPeer.ALL) {
				nodes.flushAll();
				try (RedlockPeer peer = RedlockPeer.create(name, nodes.urls())) {
					counts.put(name, RedlockMeasurements.commands(peer, nodes, "bench:redlock:count", settings.pairs()));
				}
			}
			return new NodeRun(n, settings, results, counts);
		}
	}

	private static RedlockReport.Round measure(RedlockNodes nodes, int round, String name, Settings settings)
			throws InterruptedException {
		long warmUp = TimeUnit.SECONDS.toNanos(settings.warmUpSeconds());
		long measure = TimeUnit.SECONDS.toNanos(settings.seconds());
		nodes.flushAll();
		RedlockMeasurements.Uncontended uncontended;
		try (RedlockPeer peer = RedlockPeer.create(name, nodes.urls())) {
			uncontended = RedlockMeasurements.uncontended(peer, "bench:redlock:uncontended", warmUp, measure);
		}
		nodes.flushAll();
		RedlockMeasurements.Contended contended;
		try (RedlockPeer first = RedlockPeer.create(name, nodes.urls());
				RedlockPeer second = RedlockPeer.create(name, nodes.urls())) {
			// the clients connect (and ours checks the nodes) first: a frozen node answers no handshake
			if (FROZEN) {
				nodes.server(nodes.size() - 1).freeze();
			}
			try {
				contended = RedlockMeasurements.contended(List.of(first, second), "bench:redlock:contended",
						settings.threads(), warmUp, measure);
			}
			finally {
				if (FROZEN) {
					nodes.server(nodes.size() - 1).resume();
				}
			}
		}
		RedlockReport.Round result = new RedlockReport.Round(round, name, uncontended, contended);
		System.out.printf("%d nodes, round %d, %s: %s%n", nodes.size(), round, name, result.summary());
		return result;
	}

}
