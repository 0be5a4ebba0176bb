package io.github.distributedlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.benchmarks.ResultsCharts.Figure;

/**
 * The figures each chart of RESULTS.md shows, taken from a run's results ({@link RunResults}): every value per
 * round, so that the chart can show the spread. Stateless.
 */
final class ResultsFigures {

	/** The single-method lock workloads' names on the charts. */
	private static final Map<String, String> LOCK_LABELS = Map.of("W1", "W1 1 thread", "W2", "W2 16 threads", "W3",
			"W3 1 key, 8 threads", "W3x", "W3x 1 key, 8 instances", "W4", "W4 reentrant");

	private ResultsFigures() {
	}

	/**
	 * Throughput per peer per workload: W1 to W5, the semaphore's S1 and S2, Redlock uncontended and contended.
	 * @param run the results
	 * @return ops/s per round
	 */
	static List<Figure> throughput(RunResults run) {
		List<Figure> figures = new ArrayList<>();
		if (run.locks() != null) {
			JmhResults locks = run.locks().results();
			for (LockWorkloads.Workload workload : LockWorkloads.HEADLINE) {
				for (String peer : workload.peers()) {
					if (LOCK_LABELS.containsKey(workload.name())) {
						add(figures, LOCK_LABELS.get(workload.name()), peer, locks.roundOps(workload.benchmark(), peer));
					}
					else {
						add(figures, "W5 reads, 8 readers + 1 writer", peer, locks.roundSecondary(workload.benchmark(), "reader", peer));
					}
				}
			}
		}
		if (run.semaphores() != null) {
			for (String peer : SemaphorePeer.ALL) {
				add(figures, "S1 semaphore, 1 thread", peer, run.semaphores().roundOps(SemaphoreRunner.S1, peer));
				add(figures, "S2 semaphore, 16 threads", peer, run.semaphores().roundOps(SemaphoreRunner.S2, peer));
			}
		}
		if (run.redlock() != null) {
			for (RedlockBenchmark.NodeRun redlock : run.redlock()) {
				for (String peer : RedlockPeer.ALL) {
					add(figures, "Redlock " + redlock.nodes() + " nodes, 1 thread", peer,
							redlock.figures(peer, (round) -> round.uncontended().pairsPerSecond()));
				}
				for (String peer : RedlockPeer.ALL) {
					add(figures, "Redlock " + redlock.nodes() + " nodes, 8 threads on 1 key", peer,
							redlock.figures(peer, (round) -> round.contended().acquisitionsPerSecond()));
				}
			}
		}
		return figures;
	}

	/**
	 * The 50th and 99th percentile latency per peer of W1 to W4 (the sample-time workloads).
	 * @param run the results
	 * @return µs per round
	 */
	static List<Figure> latency(RunResults run) {
		List<Figure> figures = new ArrayList<>();
		if (run.locks() != null) {
			JmhResults locks = run.locks().results();
			for (LockWorkloads.Workload workload : LockWorkloads.HEADLINE) {
				if (!LOCK_LABELS.containsKey(workload.name())) {
					continue;
				}
				for (double p : new double[] { 50, 99 }) {
					for (String peer : workload.peers()) {
						add(figures, workload.name() + " p" + (int) p, peer,
								locks.roundPercentiles(workload.benchmark(), peer, p));
					}
				}
			}
		}
		return figures;
	}

	/**
	 * What one uncontended lock+unlock pair costs, in wall time and in Redis's scripts, per implementation: the
	 * floor, the floor with a fencing token, this library's scripts alone and through its client, the peers, and
	 * Redlock on 3 and 5 nodes: where the fencing token's and Redlock's costs sit.
	 * @param run the results
	 * @return µs per round
	 */
	static List<Figure> cost(RunResults run) {
		List<Figure> figures = new ArrayList<>();
		if (run.cost() != null) {
			List<UncontendedCost.Sample> samples = run.cost().samples();
			for (String peer : samples.stream().map(UncontendedCost.Sample::peer).distinct().toList()) {
				String label = costLabel(peer);
				add(figures, label, "wall time per pair",
						UncontendedCost.values(samples, peer, (s) -> 1e6 / s.pairsPerSecond()));
				add(figures, label, "Redis time in scripts per pair", UncontendedCost.values(samples, peer,
						UncontendedCost.Sample::scriptMicros));
			}
		}
		if (run.redlock() != null) {
			for (RedlockBenchmark.NodeRun redlock : run.redlock()) {
				for (String peer : RedlockPeer.ALL) {
					String label = (peer.equals("ours") ? "ours, store=redlock, " : "RedissonRedLock, ")
							+ redlock.nodes() + " nodes";
					add(figures, label, "wall time per pair",
							redlock.figures(peer, (round) -> 1e6 / round.uncontended().pairsPerSecond()));
					long micros = 0;
					for (CommandStats node : redlock.counts().getOrDefault(peer, List.of())) {
						micros += node.requestsInsideScriptMicros()[2];
					}
					add(figures, label, "Redis time in scripts per pair",
							List.of((double) micros / redlock.settings().pairs()));
				}
			}
		}
		return figures;
	}

	/**
	 * The cost chart's name of a peer of {@link UncontendedCost}.
	 * @param peer the peer
	 * @return what it is
	 */
	static String costLabel(String peer) {
		return switch (peer) {
			case "floor" -> "floor: SET NX PX, compare-and-delete";
			case "token-floor" -> "floor + a fencing token (token-floor)";
			case "ours-scripts" -> "ours: its scripts alone (ours-scripts)";
			case "ours" -> "ours (Redis store)";
			default -> peer;
		};
	}

	private static void add(List<Figure> figures, String category, String series, List<Double> rounds) {
		if (!rounds.isEmpty()) {
			figures.add(new Figure(category, series, rounds));
		}
	}

}
