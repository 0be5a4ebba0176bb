package io.github.distributedlock.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;

import org.openjdk.jmh.annotations.Mode;

/**
 * The lock workloads W1 to W5 (and W3m when asked for) of every peer on one Redis (given by
 * {@code -Dbench.redis.port}), in JMH forks, round after round with the peers in alternating order; then the
 * Redis commands of an uncontended pair per peer. Not thread-safe: the runner's main thread uses it.
 */
final class LockWorkloads {

	/**
	 * One workload: a JMH benchmark, the peers it runs for, and its mode. Sample time gives the latency
	 * percentiles and, from JMH's count of operations, the throughput, in one fork.
	 * @param name the workload's name in the reports, such as {@code W1}
	 * @param benchmark the benchmark method's (or group's) name
	 * @param peers the peers that can run it
	 * @param mode throughput or sample time
	 */
	record Workload(String name, String benchmark, List<String> peers, Mode mode) {
	}

	static final List<String> REENTRANT = List.of("ours", "redisson", "si-spin", "si-pubsub");

	/** The workloads of a run, in the order they run. */
	static final List<Workload> HEADLINE = List.of(new Workload("W1", "w1OwnKey", LockPeer.ALL, Mode.SampleTime),
			new Workload("W2", "w2OwnKeys16Threads", LockPeer.ALL, Mode.SampleTime),
			new Workload("W3", "w3OneKey8Threads", LockPeer.ALL, Mode.SampleTime),
			new Workload("W3x", "w3xOneKey8Instances", LockPeer.ALL, Mode.SampleTime),
			new Workload("W4", "w4Reentrant", REENTRANT, Mode.SampleTime),
			new Workload("W5", "w5ReadWrite", List.of("ours", "redisson"), Mode.Throughput));

	/** Workloads that run only when {@code -Dbench.workloads} names them. */
	static final List<Workload> EXTRA = List.of(
			new Workload("W3m", "w3mOneKey2Instances4ThreadsEach", LockPeer.ALL, Mode.SampleTime));

	private final JmhResults results;

	private final int rounds;

	private final List<String> workloads;

	private final List<String> peers;

	/**
	 * @param results where the runs go, with their iterations
	 * @param rounds how often every workload runs for every peer, the peers in alternating order: on a shared
	 * machine the speed drifts for seconds at a time, and one round would charge a slow stretch to one peer alone
	 * @param workloads the benchmarks to run (names such as {@code w1OwnKey}); empty runs the headline ones
	 * @param peers the peers to run; empty runs them all
	 */
	LockWorkloads(JmhResults results, int rounds, List<String> workloads, List<String> peers) {
		this.results = results;
		this.rounds = rounds;
		this.workloads = workloads;
		this.peers = peers;
	}

	/**
	 * Runs the rounds, then counts the commands of an uncontended pair per peer.
	 * @return the results and the counts
	 * @throws Exception if a run fails
	 */
	LockRun run() throws Exception {
		List<Workload> chosen = new ArrayList<>();
		for (Workload workload : concat(HEADLINE, EXTRA)) {
			if (this.workloads.isEmpty() ? HEADLINE.contains(workload) : this.workloads.contains(workload.benchmark())) {
				chosen.add(workload);
			}
		}
		for (int round = 0; round < this.rounds; round++) {
			for (Workload workload : chosen) {
				List<String> order = chosen(workload.peers());
				if (round % 2 == 1) {
					Collections.reverse(order);
				}
				for (String peer : order) {
					Extras.clear(workload.benchmark(), peer);
					for (String name : this.results.run("\\." + workload.benchmark() + "$", workload.mode(), peer, peer)) {
						this.results.mergeExtras(name, peer);
					}
				}
			}
		}
		Map<String, long[]> commands = new LinkedHashMap<>();
		for (String peer : chosen(LockPeer.ALL)) {
			commands.put(peer, commandsPerPair(peer));
		}
		return new LockRun(this.results, this.rounds, commands);
	}

	/**
	 * The benchmark of a workload.
	 * @param name the workload's name, such as {@code W1}
	 * @return its benchmark's name, such as {@code w1OwnKey}
	 * @throws IllegalArgumentException if there is no such workload
	 */
	static String benchmark(String name) {
		return concat(HEADLINE, EXTRA).stream()
			.filter((workload) -> workload.name().equals(name))
			.findFirst()
			.map(Workload::benchmark)
			.orElseThrow(() -> new IllegalArgumentException("No workload " + name));
	}

	private static List<Workload> concat(List<Workload> first, List<Workload> second) {
		List<Workload> all = new ArrayList<>(first);
		all.addAll(second);
		return all;
	}

	private List<String> chosen(List<String> candidates) {
		List<String> order = new ArrayList<>(candidates);
		if (!this.peers.isEmpty()) {
			order.retainAll(this.peers);
		}
		return order;
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
			return new long[] { counted[0], counted[1], pairs, counted[2] };
		}
	}

	/**
	 * What the lock workloads measured.
	 * @param results every round's JMH results
	 * @param rounds the rounds run
	 * @param commands per peer: requests, commands inside scripts, pairs, script µs
	 */
	record LockRun(JmhResults results, int rounds, Map<String, long[]> commands) {
	}

}
