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
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Mode;

/**
 * Runs every workload against every peer on one Redis (given by {@code -Dbench.redis.port}), and writes a
 * Markdown report with the ratios ({@link BenchmarkReport}). Arguments: the report's path.
 * {@code -Dbench.quick=true} shortens the iterations for a smoke run.
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

	private final JmhResults results = new JmhResults(QUICK);

	private BenchmarkRunner() {
	}

	private static List<String> names(String commaSeparated) {
		return Arrays.stream(commaSeparated.split(",")).map(String::trim).filter((name) -> !name.isEmpty()).toList();
	}

	/**
	 * Runs the rounds, the command count and the cost per uncontended pair ({@link UncontendedCost}), and writes
	 * the report.
	 * @param args the report's path (default {@code RESULTS.md})
	 * @throws Exception if a run fails
	 */
	public static void main(String[] args) throws Exception {
		Path report = Path.of((args.length > 0) ? args[0] : "RESULTS.md");
		new BenchmarkRunner().runAll(report);
	}

	private void runAll(Path report) throws Exception {
		List<String> all = LockPeer.ALL;
		List<String> reentrant = List.of("ours", "redisson", "si-spin", "si-pubsub");
		run("w1OwnKey", all, Mode.Throughput);
		run("w1OwnKey", all, Mode.SampleTime);
		run("w2OwnKeys16Threads", all, Mode.Throughput);
		run("w3OneKey8Threads", all, Mode.Throughput);
		run("w3OneKey8Threads", all, Mode.SampleTime);
		run("w3xOneKey8Instances", all, Mode.Throughput);
		run("w3mOneKey2Instances4ThreadsEach", all, Mode.Throughput);
		run("w4Reentrant", reentrant, Mode.Throughput);
		run("w5ReadWrite", List.of("ours", "redisson"), Mode.Throughput);
		run("w6", List.of(), Mode.Throughput);
		Map<String, long[]> commands = new LinkedHashMap<>();
		for (String peer : all) {
			if (PEERS.isEmpty() || PEERS.contains(peer)) {
				commands.put(peer, commandsPerPair(peer));
			}
		}
		List<String> costPeers = new ArrayList<>(all);
		if (!PEERS.isEmpty()) {
			costPeers.retainAll(PEERS);
		}
		// the JMH forks have ended: this JVM runs nothing else while it measures the process's CPU time
		String cost = UncontendedCost.markdown(UncontendedCost.measure(costPeers, QUICK ? 1 : Integer.getInteger(
				"bench.cost.rounds", 5), QUICK ? 2_000 : Integer.getInteger("bench.cost.pairs", 10_000)));
		String markdown = new BenchmarkReport(this.results, ROUNDS, QUICK, commands).markdown() + "\n" + cost;
		Files.writeString(report, markdown, StandardCharsets.UTF_8);
		System.out.println("Wrote " + report.toAbsolutePath());
	}

	private void run(String benchmark, List<String> peers, Mode mode) throws Exception {
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
				runRound(benchmark, null, mode);
			}
			for (String peer : order) {
				runRound(benchmark, peer, mode);
			}
		}
	}

	/** Runs one benchmark (every method it matches) for one peer, or for none ({@code peer == null}). */
	private void runRound(String benchmark, @Nullable String peer, Mode mode) throws Exception {
		if (peer != null) {
			Extras.clear(benchmark, peer);
		}
		List<String> names = this.results.run("\\." + benchmark, mode, peer, (peer != null) ? peer : "ours");
		if (peer != null) {
			for (String name : names) {
				this.results.mergeExtras(name, peer);
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
		try (RedisAdmin admin = RedisAdmin.connect(); LockPeer peer = LockPeer.create(peerName)) {
			Lock lock = peer.lock("bench:commands");
			lock.lock();
			lock.unlock();
			admin.resetStats();
			for (int i = 0; i < pairs; i++) {
				lock.lock();
				lock.unlock();
			}
			long[] counted = admin.commandStats().requestsInsideScriptMicros();
			long requests = counted[0];
			long inside = counted[1];
			long scriptMicros = counted[2];
			return new long[] { requests, inside, pairs, scriptMicros };
		}
	}

}
