package io.github.distributedlock.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * {@code bench.redlock.pairs} (pairs counted, 1000). The nodes are emptied before each measurement.
 */
public final class RedlockBenchmark {

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
		int rounds = Integer.getInteger("bench.redlock.rounds", 5);
		long measure = Long.getLong("bench.redlock.seconds", 20) * 1_000_000_000L;
		long warmUp = Long.getLong("bench.redlock.warmup", 10) * 1_000_000_000L;
		int threads = Integer.getInteger("bench.redlock.threads", 4);
		int pairs = Integer.getInteger("bench.redlock.pairs", 1000);
		String load = Files.readString(Path.of("/proc/loadavg")).trim();
		RedlockReport markdown = new RedlockReport(rounds, measure / 1_000_000_000L, warmUp / 1_000_000_000L,
				threads, pairs);
		for (int n : nodeCounts) {
			try (RedlockNodes nodes = new RedlockNodes(n)) {
				List<RedlockReport.Round> results = new ArrayList<>();
				List<String> order = new ArrayList<>(RedlockPeer.ALL);
				for (int round = 1; round <= rounds; round++) {
					for (String peer : order) {
						results.add(measure(nodes, round, peer, threads, warmUp, measure));
					}
					Collections.reverse(order);
				}
				Map<String, List<CommandStats>> counts = new LinkedHashMap<>();
				for (String name : RedlockPeer.ALL) {
					nodes.flushAll();
					try (RedlockPeer peer = RedlockPeer.create(name, nodes.urls())) {
						counts.put(name, RedlockMeasurements.commands(peer, nodes, "bench:redlock:count", pairs));
					}
				}
				markdown.add(n, results, counts);
			}
		}
		String text = markdown.markdown(load, Files.readString(Path.of("/proc/loadavg")).trim());
		Files.createDirectories(report.toAbsolutePath().getParent());
		Files.writeString(report, text, StandardCharsets.UTF_8);
		System.out.println(text);
		System.out.println("Wrote " + report.toAbsolutePath());
	}

	private static RedlockReport.Round measure(RedlockNodes nodes, int round, String name, int threads, long warmUp,
			long measure) throws InterruptedException {
		nodes.flushAll();
		RedlockMeasurements.Uncontended uncontended;
		try (RedlockPeer peer = RedlockPeer.create(name, nodes.urls())) {
			uncontended = RedlockMeasurements.uncontended(peer, "bench:redlock:uncontended", warmUp, measure);
		}
		nodes.flushAll();
		RedlockMeasurements.Contended contended;
		try (RedlockPeer first = RedlockPeer.create(name, nodes.urls());
				RedlockPeer second = RedlockPeer.create(name, nodes.urls())) {
			contended = RedlockMeasurements.contended(List.of(first, second), "bench:redlock:contended", threads,
					warmUp, measure);
		}
		RedlockReport.Round result = new RedlockReport.Round(round, name, uncontended, contended);
		System.out.printf("%d nodes, round %d, %s: %s%n", nodes.size(), round, name, result.summary());
		return result;
	}

}
