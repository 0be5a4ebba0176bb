package io.github.distributedlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * What one uncontended lock+unlock pair (W1: one thread, its own key) costs each peer, beside its speed: the client's
 * CPU time (the whole JVM process: the caller, the I/O threads, the garbage collector and the JIT), the bytes the
 * JVM's threads allocated, redis-server's CPU time ({@code INFO cpu}), and the requests the client sent and the
 * commands run inside scripts ({@code INFO commandstats}). Every round measures every peer once, in alternating
 * order, each on a client of its own made for the round and warmed up first; ratios are taken per round (a slow
 * stretch of the machine then hits both sides of a ratio) and reported with their spread.
 * <p>
 * Runs in one JVM with nothing else running in it, against the Redis of {@code -Dbench.redis.port}; it measures
 * the process as a whole, so no other benchmark may run in this JVM meanwhile. {@code run.sh cost} runs it.
 */
public final class UncontendedCost {

	/** The rounds ({@code -Dbench.cost.rounds}, default 5). */
	private static final int ROUNDS = Integer.getInteger("bench.cost.rounds", 5);

	/** The measured pairs per peer per round ({@code -Dbench.cost.pairs}, default 10,000). */
	private static final int PAIRS = Integer.getInteger("bench.cost.pairs", 10_000);

	/** The pairs each client runs before its measurement, to warm up its connection and code paths. */
	private static final int WARM_UP = Integer.getInteger("bench.cost.warmup", 3_000);

	/**
	 * What one peer cost per pair in one round.
	 * @param peer the peer's name (see {@link LockPeer#ALL})
	 * @param round the round, from 0
	 * @param pairsPerSecond pairs per second of wall-clock time
	 * @param clientCpuMicros the JVM process's CPU time per pair, µs
	 * @param allocatedBytes bytes allocated by the JVM's threads per pair
	 * @param redisCpuMicros redis-server's CPU time (user and system) per pair, µs
	 * @param requests requests the client sent per pair
	 * @param inside commands run inside scripts per pair
	 * @param scriptMicros µs Redis spent in script calls per pair ({@code INFO commandstats})
	 * @param redisUserMicros redis-server's user CPU time per pair, µs (its own work, without system calls)
	 */
	record Sample(String peer, int round, double pairsPerSecond, double clientCpuMicros, double allocatedBytes,
			double redisCpuMicros, double requests, double inside, double scriptMicros,
			double redisUserMicros) {
	}

	private UncontendedCost() {
	}

	/**
	 * Measures the peers and writes the Markdown table.
	 * @param args the report's path (default {@code lock-benchmarks/target/uncontended-cost.md}), then optionally
	 * the peers (comma-separated, default every peer)
	 * @throws Exception if a peer fails
	 */
	public static void main(String[] args) throws Exception {
		Path report = Path.of((args.length > 0) ? args[0] : "lock-benchmarks/target/uncontended-cost.md");
		List<String> peers = (args.length > 1) ? Arrays.asList(args[1].split(",")) : LockPeer.ALL;
		String markdown = markdown(measure(peers, ROUNDS, PAIRS));
		Files.createDirectories(report.toAbsolutePath().getParent());
		Files.writeString(report, markdown, StandardCharsets.UTF_8);
		System.out.println(markdown);
	}

	/**
	 * Measures every peer once per round, in alternating order.
	 * @param peers the peers
	 * @param rounds how many rounds
	 * @param pairs measured pairs per peer per round
	 * @return one sample per peer per round
	 * @throws Exception if a peer fails
	 */
	static List<Sample> measure(List<String> peers, int rounds, int pairs) throws Exception {
		List<Sample> samples = new ArrayList<>();
		// round -1 warms up the JIT on every peer's code and is not counted: the first peer would pay for it
		for (int round = -1; round < rounds; round++) {
			List<String> order = new ArrayList<>(peers);
			if (Math.floorMod(round, 2) == 1) {
				Collections.reverse(order);
			}
			for (String peer : order) {
				Sample sample = measure(peer, round, pairs);
				if (round < 0) {
					continue;
				}
				System.out.printf("[cost] round %d %-9s %8.0f pairs/s %6.1f µs client CPU %7.0f B %6.1f µs Redis CPU "
						+ "%4.2f requests %5.2f inside%n", round, peer, sample.pairsPerSecond(), sample.clientCpuMicros(),
						sample.allocatedBytes(), sample.redisCpuMicros(), sample.requests(), sample.inside());
				samples.add(sample);
			}
		}
		return samples;
	}

	private static Sample measure(String peerName, int round, int pairs) throws Exception {
		try (RedisAdmin admin = RedisAdmin.connect(); LockPeer peer = LockPeer.create(peerName)) {
			Lock lock = peer.lock("bench:cost:" + round);
			for (int i = 0; i < WARM_UP; i++) {
				lock.lock();
				lock.unlock();
			}
			admin.resetStats();
			double redisCpu = admin.cpuSeconds();
			double redisUser = admin.userCpuSeconds();
			long allocated = allocatedBytes();
			ThreadCpu threads = ThreadCpu.start();
			long cpu = ThreadCpu.processCpuNanos();
			long start = System.nanoTime();
			for (int i = 0; i < pairs; i++) {
				lock.lock();
				lock.unlock();
			}
			long wall = System.nanoTime() - start;
			cpu = ThreadCpu.processCpuNanos() - cpu;
			Map<String, Double> byThread = threads.stop();
			System.out.printf("[cost threads] %s: %s%n", peerName, byThread.entrySet()
				.stream()
				.filter((e) -> e.getValue() * 1e6 / pairs >= 1)
				.map((e) -> e.getKey() + " " + String.format("%.1f", e.getValue() * 1e6 / pairs) + " µs")
				.toList());
			allocated = allocatedBytes() - allocated;
			redisCpu = admin.cpuSeconds() - redisCpu;
			redisUser = admin.userCpuSeconds() - redisUser;
			long[] counted = admin.commandStats().requestsInsideScriptMicros();
			return new Sample(peerName, round, pairs * 1e9 / wall, cpu / 1e3 / pairs, (double) allocated / pairs,
					redisCpu * 1e6 / pairs, (double) counted[0] / pairs, (double) counted[1] / pairs,
					(double) counted[2] / pairs, redisUser * 1e6 / pairs);
		}
	}

	/** The bytes every live thread of this JVM allocated so far (threads that ended no longer count). */
	private static long allocatedBytes() {
		if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads) {
			return Arrays.stream(threads.getThreadAllocatedBytes(threads.getAllThreadIds())).filter((b) -> b > 0).sum();
		}
		return 0;
	}

	/**
	 * The report: per peer the median and range over the rounds of each cost, then the ratios of the issue's
	 * targets, per round.
	 * @param samples what {@link #measure(List, int, int)} returned
	 * @return Markdown
	 */
	static String markdown(List<Sample> samples) {
		StringBuilder md = new StringBuilder("## W1 cost per uncontended lock+unlock pair\n\n");
		int rounds = (int) samples.stream().mapToInt(Sample::round).distinct().count();
		md.append(Markdown.machine()).append(", one loopback `redis-server`; ").append(rounds)
			.append(" rounds after one unrecorded round (the JIT's), the peers in alternating order, each round a new client warmed up with ").append(WARM_UP)
			.append(" pairs, then ").append(PAIRS).append(" measured pairs. Median of the rounds, [min-max]. ")
			.append("Client CPU is the JVM process's (caller, I/O threads, GC, JIT); allocation is all threads'; ")
			.append("Redis CPU is `INFO cpu` user+system (the whole server: reading, parsing and answering requests "
					+ "too); Redis µs in scripts is the time `INFO commandstats` counts in the script calls (the "
					+ "scripts and the commands they call, the steadier of the two on a shared machine).\n\n");
		md.append("| peer | pairs/s | client CPU µs | allocated bytes | Redis CPU µs | of which user | Redis µs in "
				+ "scripts | requests | commands inside scripts |\n");
		md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		List<String> peers = samples.stream().map(Sample::peer).distinct().toList();
		for (String peer : peers) {
			List<Sample> mine = samples.stream().filter((s) -> s.peer().equals(peer)).toList();
			md.append("| ").append(peer)
				.append(" | ").append(spread(mine.stream().mapToDouble(Sample::pairsPerSecond).toArray(), "%.0f"))
				.append(" | ").append(spread(mine.stream().mapToDouble(Sample::clientCpuMicros).toArray(), "%.1f"))
				.append(" | ").append(spread(mine.stream().mapToDouble(Sample::allocatedBytes).toArray(), "%.0f"))
				.append(" | ").append(spread(mine.stream().mapToDouble(Sample::redisCpuMicros).toArray(), "%.1f"))
				.append(" | ").append(spread(mine.stream().mapToDouble(Sample::redisUserMicros).toArray(), "%.1f"))
				.append(" | ").append(spread(mine.stream().mapToDouble(Sample::scriptMicros).toArray(), "%.1f"))
				.append(" | ").append(spread(mine.stream().mapToDouble(Sample::requests).toArray(), "%.2f"))
				.append(" | ").append(spread(mine.stream().mapToDouble(Sample::inside).toArray(), "%.2f"))
				.append(" |\n");
		}
		md.append("\nRatios per round (median [min-max]):\n\n| ratio | value | target |\n|---|---:|---:|\n");
		ratio(md, samples, "ours / floor pairs/s (W1)", "floor", Sample::pairsPerSecond, ">= 0.95");
		ratio(md, samples, "ours / floor client CPU per pair", "floor", Sample::clientCpuMicros, "<= 1.15");
		ratio(md, samples, "ours / si-spin Redis CPU per pair", "si-spin", Sample::redisCpuMicros, "<= 1.2");
		ratio(md, samples, "ours / si-spin Redis user CPU per pair", "si-spin", Sample::redisUserMicros, "");
		ratio(md, samples, "ours / si-spin Redis µs in scripts per pair", "si-spin", Sample::scriptMicros, "");
		ratio(md, samples, "ours / floor Redis CPU per pair", "floor", Sample::redisCpuMicros, "");
		ratio(md, samples, "ours / redisson pairs/s", "redisson", Sample::pairsPerSecond, "");
		ratio(md, samples, "ours / redisson client CPU per pair", "redisson", Sample::clientCpuMicros, "");
		return md.toString();
	}

	private static void ratio(StringBuilder md, List<Sample> samples, String name, String other,
			java.util.function.ToDoubleFunction<Sample> value, String target) {
		List<Double> ratios = new ArrayList<>();
		for (Sample ours : samples) {
			if (ours.peer().equals("ours")) {
				samples.stream()
					.filter((s) -> s.peer().equals(other) && s.round() == ours.round())
					.findFirst()
					.ifPresent((s) -> ratios.add(value.applyAsDouble(ours) / value.applyAsDouble(s)));
			}
		}
		if (!ratios.isEmpty()) {
			md.append("| ").append(name).append(" | ")
				.append(spread(ratios.stream().mapToDouble(Double::doubleValue).toArray(), "%.2f"))
				.append(" | ").append(target).append(" |\n");
		}
	}

	/** {@code median [min-max]} of the values, each with the format. */
	private static String spread(double[] values, String format) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int n = sorted.length;
		double median = (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
		return String.format(format, median) + " [" + String.format(format, sorted[0]) + "-"
				+ String.format(format, sorted[n - 1]) + "]";
	}

}
