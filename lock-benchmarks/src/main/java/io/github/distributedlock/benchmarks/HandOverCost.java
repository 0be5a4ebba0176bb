package io.github.distributedlock.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * What a hand-over of one contended key between application instances (W3x: clients of one thread each) costs,
 * beside how many there are per second: the script calls per acquisition, the commands run inside them, the
 * microseconds Redis spent in them ({@code INFO commandstats}) and redis-server's CPU ({@code INFO cpu}), and the
 * fairness (the slowest instance's acquisitions over the fastest's). Under contention Redis runs every peer's
 * commands one after another, so its time per acquisition bounds the hand-overs a second; JMH's W3x gives the
 * throughput with an error too wide (a few 2 s iterations) to see a change of the scripts.
 * <p>
 * Each round runs every peer once, the order reversed every round, for {@code bench.handover.seconds} after a
 * warm-up of a second; each thread checks that nobody else is inside while it holds the lock (violations must be
 * 0). Runs in one JVM against the Redis of {@code -Dbench.redis.port}. {@code run.sh hand-over} runs it.
 */
public final class HandOverCost {

	/** The rounds ({@code -Dbench.handover.rounds}, default 3). */
	private static final int ROUNDS = Integer.getInteger("bench.handover.rounds", 3);

	/** The instances contending ({@code -Dbench.handover.clients}, default 8), one thread each. */
	private static final int CLIENTS = Integer.getInteger("bench.handover.clients", 8);

	/** How long each peer contends per round, in seconds ({@code -Dbench.handover.seconds}, default 8). */
	private static final int SECONDS = Integer.getInteger("bench.handover.seconds", 8);

	/**
	 * One peer's round.
	 * @param peer the peer's name (see {@link LockPeer#ALL})
	 * @param round the round, from 0
	 * @param perSecond acquisitions per second, all instances together
	 * @param fairness the slowest instance's acquisitions over the fastest's
	 * @param requests requests sent to Redis per acquisition (script calls and other top-level commands)
	 * @param inside commands run inside scripts per acquisition
	 * @param scriptMicros µs Redis spent in script calls per acquisition
	 * @param redisCpuMicros redis-server's CPU time (user and system) per acquisition, µs
	 * @param violations times a thread found another inside
	 */
	record Sample(String peer, int round, double perSecond, double fairness, double requests, double inside,
			double scriptMicros, double redisCpuMicros, long violations) {
	}

	private HandOverCost() {
	}

	/**
	 * Measures the peers and writes the Markdown table.
	 * @param args the report's path (default {@code lock-benchmarks/target/hand-over-cost.md}), then optionally
	 * the peers (comma-separated, default {@code ours,si-spin,floor})
	 * @throws Exception if a peer fails
	 */
	public static void main(String[] args) throws Exception {
		Path report = Path.of((args.length > 0) ? args[0] : "lock-benchmarks/target/hand-over-cost.md");
		List<String> peers = Arrays.asList(((args.length > 1) ? args[1] : "ours,si-spin,floor").split(","));
		List<Sample> samples = new ArrayList<>();
		for (int round = 0; round < ROUNDS; round++) {
			List<String> order = new ArrayList<>(peers);
			if (round % 2 == 1) {
				java.util.Collections.reverse(order);
			}
			for (String peer : order) {
				Sample sample = measure(peer, round);
				System.out.printf("[hand-over] round %d %-9s %8.0f acq/s fairness %.2f %5.2f requests %6.2f inside "
						+ "%7.1f µs in scripts %7.1f µs Redis CPU %d violations%n", round, peer, sample.perSecond(),
						sample.fairness(), sample.requests(), sample.inside(), sample.scriptMicros(),
						sample.redisCpuMicros(), sample.violations());
				samples.add(sample);
			}
		}
		String markdown = markdown(samples);
		Files.createDirectories(report.toAbsolutePath().getParent());
		Files.writeString(report, markdown, StandardCharsets.UTF_8);
		System.out.println(markdown);
	}

	private static Sample measure(String name, int round) throws Exception {
		List<LockPeer> clients = new ArrayList<>();
		try (RedisAdmin admin = RedisAdmin.connect()) {
			String key = "bench:handover:" + name + ":" + round;
			for (int i = 0; i < CLIENTS; i++) {
				clients.add(LockPeer.create(name));
			}
			AtomicBoolean measuring = new AtomicBoolean();
			AtomicBoolean stop = new AtomicBoolean();
			AtomicInteger inside = new AtomicInteger();
			AtomicLong violations = new AtomicLong();
			long[] counts = new long[CLIENTS];
			CountDownLatch done = new CountDownLatch(CLIENTS);
			for (int i = 0; i < CLIENTS; i++) {
				int me = i;
				Lock lock = clients.get(i).lock(key);
				Thread thread = new Thread(() -> {
					try {
						while (!stop.get()) {
							lock.lock();
							try {
								if (inside.incrementAndGet() != 1) {
									violations.incrementAndGet();
								}
								if (measuring.get()) {
									counts[me]++;
								}
								inside.decrementAndGet();
							}
							finally {
								lock.unlock();
							}
						}
					}
					finally {
						done.countDown();
					}
				}, "hand-over-" + i);
				thread.start();
			}
			Thread.sleep(1000);
			admin.resetStats();
			double cpuBefore = admin.cpuSeconds();
			long start = System.nanoTime();
			measuring.set(true);
			Thread.sleep(TimeUnit.SECONDS.toMillis(SECONDS));
			measuring.set(false);
			long elapsed = System.nanoTime() - start;
			double cpu = admin.cpuSeconds() - cpuBefore;
			long[] stats = admin.commandStats().requestsInsideScriptMicros();
			stop.set(true);
			if (!done.await(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException(name + ": the contending threads did not stop within 60 s");
			}
			long total = Arrays.stream(counts).sum();
			long slowest = Arrays.stream(counts).min().orElse(0);
			long fastest = Arrays.stream(counts).max().orElse(1);
			// the counts of the threads' last acquisitions after the measurement are left out of both sides alike
			return new Sample(name, round, total * 1e9 / elapsed, (double) slowest / Math.max(1, fastest),
					(double) stats[0] / total, (double) stats[1] / total, (double) stats[2] / total, cpu * 1e6 / total,
					violations.get());
		}
		finally {
			for (LockPeer client : clients) {
				client.close();
			}
		}
	}

	static String markdown(List<Sample> samples) {
		StringBuilder md = new StringBuilder("## W3x hand-over cost: one key, ").append(CLIENTS)
			.append(" instances of one thread each\n\n");
		md.append(Markdown.machine()).append(", one loopback `redis-server`; ").append(ROUNDS).append(" rounds of ")
			.append(SECONDS).append(" s per peer after 1 s of warm-up, the order reversed every round; median of the ")
			.append("rounds, [min-max]. Per acquisition: requests sent, commands inside scripts, µs Redis spent in ")
			.append("script calls (`INFO commandstats`), redis-server CPU (`INFO cpu`).\n\n");
		md.append("| peer | acq/s | slowest/fastest instance | requests | commands inside scripts | Redis µs in "
				+ "scripts | Redis CPU µs | violations |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
		for (String peer : samples.stream().map(Sample::peer).distinct().toList()) {
			List<Sample> mine = samples.stream().filter((s) -> s.peer().equals(peer)).toList();
			md.append(Markdown.row(peer, Markdown.spread(mine, Sample::perSecond, "%.0f"),
					Markdown.spread(mine, Sample::fairness, "%.2f"), Markdown.spread(mine, Sample::requests, "%.2f"),
					Markdown.spread(mine, Sample::inside, "%.2f"), Markdown.spread(mine, Sample::scriptMicros, "%.1f"),
					Markdown.spread(mine, Sample::redisCpuMicros, "%.1f"),
					Long.toString(mine.stream().mapToLong(Sample::violations).sum())));
		}
		return md.toString();
	}

}
