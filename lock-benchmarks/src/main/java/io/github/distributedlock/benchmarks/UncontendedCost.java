package io.github.distributedlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.ToDoubleFunction;

/**
 * What one uncontended lock+unlock pair (W1: one thread, its own key) costs each peer, beside its speed: the client's
 * CPU time (the whole JVM process: the caller, the I/O threads, the garbage collector and the JIT), the bytes the
 * JVM's threads allocated, redis-server's CPU time ({@code INFO cpu}), and the requests the client sent and the
 * commands run inside scripts ({@code INFO commandstats}). Every round makes a client of each peer and warms it up,
 * then the peers take turns of {@code bench.cost.block} pairs, in alternating order, until each ran its pairs;
 * ratios are taken per round (a slow stretch of the machine then hits both sides of a ratio) and reported with their
 * spread.
 * <p>
 * Runs in one JVM with nothing else running in it, against the Redis of {@code -Dbench.redis.port}; it measures
 * the process as a whole, so no other benchmark may run in this JVM meanwhile. {@code run.sh cost} runs it.
 */
public final class UncontendedCost {

	/** The rounds ({@code -Dbench.cost.rounds}, default 5). */
	private static final int ROUNDS = Integer.getInteger("bench.cost.rounds", 5);

	/** The measured pairs per peer per round ({@code -Dbench.cost.pairs}, default 10,000). */
	private static final int PAIRS = Integer.getInteger("bench.cost.pairs", 10_000);

	/** The pairs a peer runs in one turn ({@code -Dbench.cost.block}, default 500): the peers take turns. */
	static final int BLOCK = Integer.getInteger("bench.cost.block", 500);

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
		String markdown = markdown(measure(peers, ROUNDS, PAIRS), PAIRS);
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
			List<Sample> measured = measureRound(peers, round, pairs);
			if (round < 0) {
				continue;
			}
			for (Sample sample : measured) {
				System.out.printf("[cost] round %d %-9s %8.0f pairs/s %6.1f µs client CPU %7.0f B %6.1f µs Redis CPU "
						+ "%4.2f requests %5.2f inside%n", round, sample.peer(), sample.pairsPerSecond(),
						sample.clientCpuMicros(), sample.allocatedBytes(), sample.redisCpuMicros(), sample.requests(),
						sample.inside());
			}
			samples.addAll(measured);
		}
		return samples;
	}

	/**
	 * One round: a client of each peer, warmed up, then blocks of {@link #BLOCK} pairs per peer in turns, the
	 * order of the turn reversed every block, until each ran {@code pairs}. A slow stretch of the machine (they
	 * last seconds here, while a block lasts a tenth of one) then falls on every peer alike, which one peer's
	 * {@code pairs} after the other's did not: their ratio moved from 0.65 to 1.01 between the rounds of one run.
	 * The idle clients stay open meanwhile; their background threads' CPU counts for whichever peer runs.
	 */
	private static List<Sample> measureRound(List<String> peerNames, int round, int pairs) throws Exception {
		List<LockPeer> peers = new ArrayList<>();
		try (RedisAdmin admin = RedisAdmin.connect()) {
			List<Lock> locks = new ArrayList<>();
			for (String name : peerNames) {
				LockPeer peer = LockPeer.create(name);
				peers.add(peer);
				Lock lock = peer.lock("bench:cost:" + round);
				for (int i = 0; i < WARM_UP; i++) {
					lock.lock();
					lock.unlock();
				}
				locks.add(lock);
			}
			int n = peerNames.size();
			long[] wall = new long[n];
			long[] cpu = new long[n];
			long[] allocated = new long[n];
			double[] redisCpu = new double[n];
			double[] redisUser = new double[n];
			long[][] counted = new long[n][3];
			int blocks = Math.max(1, pairs / BLOCK);
			for (int block = 0; block < blocks; block++) {
				for (int turn = 0; turn < n; turn++) {
					int p = (block % 2 == 0) ? turn : n - 1 - turn;
					Lock lock = locks.get(p);
					admin.resetStats();
					double redisBefore = admin.cpuSeconds();
					double userBefore = admin.userCpuSeconds();
					long allocatedBefore = allocatedBytes();
					long cpuBefore = ThreadCpu.processCpuNanos();
					long start = System.nanoTime();
					for (int i = 0; i < BLOCK; i++) {
						lock.lock();
						lock.unlock();
					}
					wall[p] += System.nanoTime() - start;
					cpu[p] += ThreadCpu.processCpuNanos() - cpuBefore;
					allocated[p] += allocatedBytes() - allocatedBefore;
					redisCpu[p] += admin.cpuSeconds() - redisBefore;
					redisUser[p] += admin.userCpuSeconds() - userBefore;
					long[] stats = admin.commandStats().requestsInsideScriptMicros();
					for (int k = 0; k < 3; k++) {
						counted[p][k] += stats[k];
					}
				}
			}
			List<Sample> samples = new ArrayList<>();
			long measured = (long) blocks * BLOCK;
			for (int p = 0; p < n; p++) {
				samples.add(new Sample(peerNames.get(p), round, measured * 1e9 / wall[p], cpu[p] / 1e3 / measured,
						(double) allocated[p] / measured, redisCpu[p] * 1e6 / measured,
						(double) counted[p][0] / measured, (double) counted[p][1] / measured,
						(double) counted[p][2] / measured, redisUser[p] * 1e6 / measured));
			}
			return samples;
		}
		finally {
			for (LockPeer peer : peers) {
				peer.close();
			}
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
	 * @param pairs the measured pairs per peer per round it was given
	 * @return Markdown
	 */
	static String markdown(List<Sample> samples, int pairs) {
		StringBuilder md = new StringBuilder("## W1 cost per uncontended lock+unlock pair\n\n");
		int rounds = (int) samples.stream().mapToInt(Sample::round).distinct().count();
		md.append(Markdown.machine()).append(", one loopback `redis-server`; ").append(rounds)
			.append(" rounds after one unrecorded round (the JIT's), each round a new client of every peer warmed up ")
			.append("with ").append(WARM_UP).append(" pairs, then ").append(pairs).append(" measured pairs per peer in turns of ")
			.append(BLOCK).append(", the order of the turn reversed every block. Median of the rounds, [min-max]. ")
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
			md.append(Markdown.row(peer, Markdown.spread(mine, Sample::pairsPerSecond, "%.0f"),
					Markdown.spread(mine, Sample::clientCpuMicros, "%.1f"),
					Markdown.spread(mine, Sample::allocatedBytes, "%.0f"),
					Markdown.spread(mine, Sample::redisCpuMicros, "%.1f"),
					Markdown.spread(mine, Sample::redisUserMicros, "%.1f"),
					Markdown.spread(mine, Sample::scriptMicros, "%.1f"), Markdown.spread(mine, Sample::requests, "%.2f"),
					Markdown.spread(mine, Sample::inside, "%.2f")));
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
		ratio(md, samples, "the fencing token: token-floor / floor pairs/s", "token-floor", "floor",
				Sample::pairsPerSecond, "");
		ratio(md, samples, "ours / token-floor pairs/s (W1 against a floor with a fencing token)", "token-floor",
				Sample::pairsPerSecond, "");
		ratio(md, samples, "the client: ours / ours-scripts pairs/s", "ours-scripts", Sample::pairsPerSecond, "");
		return md.toString();
	}

	private static void ratio(StringBuilder md, List<Sample> samples, String name, String other,
			ToDoubleFunction<Sample> value, String target) {
		ratio(md, samples, name, "ours", other, value, target);
	}

	private static void ratio(StringBuilder md, List<Sample> samples, String name, String peer, String other,
			ToDoubleFunction<Sample> value, String target) {
		Spread ratios = ratio(samples, peer, other, value);
		if (!ratios.isEmpty()) {
			md.append(Markdown.row(name, ratios.cell("%.2f"), target));
		}
	}

	/**
	 * The ratio of one peer's figure to another's, per round.
	 * @param samples what {@link #measure(List, int, int)} returned
	 * @param peer the peer above the line
	 * @param other the peer below the line
	 * @param value the figure
	 * @return the ratios' spread over the rounds both ran, {@link Spread#NONE} when one did not run
	 */
	static Spread ratio(List<Sample> samples, String peer, String other, ToDoubleFunction<Sample> value) {
		return Spread.ratios(values(samples, peer, value), values(samples, other, value));
	}

	/**
	 * One peer's figure per round.
	 * @param samples what {@link #measure(List, int, int)} returned
	 * @param peer the peer
	 * @param value the figure
	 * @return one value per round, in round order
	 */
	static List<Double> values(List<Sample> samples, String peer, ToDoubleFunction<Sample> value) {
		return samples.stream()
			.filter((s) -> s.peer().equals(peer))
			.sorted(Comparator.comparingInt(Sample::round))
			.map(value::applyAsDouble)
			.toList();
	}

}
