package io.github.distributedlock.benchmarks;

import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

import io.github.distributedlock.benchmarks.RedlockReport.Round;
import io.github.distributedlock.redis.NotificationMode;

import static io.github.distributedlock.benchmarks.Markdown.count;
import static io.github.distributedlock.benchmarks.Markdown.fmt;
import static io.github.distributedlock.benchmarks.Markdown.row;

/**
 * Writes RESULTS.md from a run's results ({@link RunResults}): when, where, how long and under what load it ran;
 * the headline (per workload this library's throughput and its ratio to each peer, taken per round, median
 * [lowest-highest]); the charts; then each section's detail tables. Everything on the page comes from the run.
 * Stateless.
 */
final class ResultsPage {

	/** The headline's peer columns, after this library's. */
	private static final List<String> PEERS = List.of("redisson", "si-spin", "si-pubsub", "floor");

	private ResultsPage() {
	}

	/**
	 * The page.
	 * @param run the results
	 * @param charts the charts' paths relative to the page, in the order of {@link ResultsRunner#CHARTS}
	 * @return Markdown
	 */
	static String markdown(RunResults run, List<String> charts) {
		StringBuilder md = new StringBuilder("# Benchmark results\n\n");
		md.append(facts(run.facts()));
		md.append("\n## Headline\n\n");
		md.append(headline(run));
		md.append("\n## Charts\n\n");
		for (String chart : charts) {
			md.append("![").append(chart.substring(chart.lastIndexOf('/') + 1, chart.lastIndexOf('.'))).append("](")
				.append(chart).append(")\n\n");
		}
		md.append("Bars are medians over the rounds; each dot is one round.\n");
		if (run.locks() != null) {
			md.append('\n').append(new LockWorkloadReport(run.locks()).markdown());
		}
		if (run.cost() != null) {
			md.append('\n').append(UncontendedCost.markdown(run.cost().samples(), run.cost().pairs()));
		}
		if (run.semaphores() != null) {
			md.append('\n').append(semaphores(run.semaphores()));
		}
		if (run.redlock() != null) {
			md.append('\n').append(redlockReport(run).section("Redlock: store=redlock against RedissonRedLock"));
		}
		if (run.cluster() != null) {
			md.append('\n').append(cluster(run.cluster()));
		}
		return md.toString();
	}

	private static String facts(RunResults.Facts facts) {
		StringBuilder md = new StringBuilder();
		md.append("Written by `lock-benchmarks/run.sh` (").append(facts.quick() ? "`BENCH_QUICK=true`, a short check of the tooling: wide error, " : "")
			.append(facts.rounds()).append((facts.rounds() == 1) ? " round" : " rounds").append(") on ")
			.append(facts.started().format(DateTimeFormatter.ofPattern("yyyy-MM-dd 'at' HH:mm z", Locale.ROOT)))
			.append(". **The run took ").append(duration(facts.took())).append("**, the build included");
		List<String> sections = new ArrayList<>();
		facts.sections().forEach((name, took) -> sections.add(name + " " + duration(took)));
		md.append(sections.isEmpty() ? "" : " (" + String.join(", ", sections) + ")").append(".\n\n");
		md.append("- Machine: ").append(facts.machine()).append(", `redis-server` ").append(facts.redisVersion())
			.append(" on loopback, started by the run (no persistence).\n");
		md.append("- Load: `").append(facts.loadAtStart()).append("` at the start of the measurements, `")
			.append(facts.loadAtEnd()).append("` at their end (other work on the machine slows every peer; the ")
			.append("ratios below compare peers measured in the same minutes).\n");
		md.append("- Method: every workload runs once per peer per round, the peers' order reversed every round; a ")
			.append("ratio is this library over the peer **per round**, shown as median [lowest-highest] over the ")
			.append("rounds. Above 1: this library is faster.\n");
		md.append("- Earlier runs, the investigations behind the numbers, and each change to the lock core measured before "
				+ "and after: [HISTORY.md](HISTORY.md).\n");
		return md.toString();
	}

	private static String duration(Duration took) {
		return took.toMinutes() + " min " + took.toSecondsPart() + " s";
	}

	private static String headline(RunResults run) {
		StringBuilder md = new StringBuilder();
		md.append(row("workload", "this library", "x Redisson", "x Spring Integration (spin)",
				"x Spring Integration (pub/sub)", "x floor (raw Lettuce)"));
		md.append("|---|---:|---:|---:|---:|---:|\n");
		if (run.locks() != null) {
			JmhResults locks = run.locks().results();
			lockRow(md, locks, "W1", "uncontended lock+unlock, 1 thread", "pairs/s");
			lockRow(md, locks, "W2", "uncontended, 16 threads on keys of their own", "pairs/s");
			lockRow(md, locks, "W3", "one key, 8 threads of one instance", "acq/s");
			lockRow(md, locks, "W3x", "one key, 8 instances of one thread", "acq/s");
			lockRow(md, locks, "W3m", "one key, 2 instances x 4 threads", "acq/s");
			lockRow(md, locks, "W4", "reentrant: lock, lock, unlock, unlock; 1 thread", "ops/s");
			for (String method : List.of("reader", "writer")) {
				String what = method.equals("reader") ? "reads" : "writes";
				double ops = locks.secondary("w5ReadWrite", "ours", method);
				if (!Double.isNaN(ops)) {
					md.append(row("W5 " + what + ": 8 readers + 1 writer, one read/write lock", fmt(ops) + " " + what + "/s",
							locks.secondaryRatio("w5ReadWrite", method, "ours", "redisson").cell("%.2f"), "-", "-", "-"));
				}
			}
		}
		if (run.cost() != null) {
			List<UncontendedCost.Sample> samples = run.cost().samples();
			List<String> cells = new ArrayList<>(List.of("W1 in one JVM, the peers taking turns of "
					+ UncontendedCost.BLOCK + " pairs",
					fmt(Spread.of(UncontendedCost.values(samples, "ours", UncontendedCost.Sample::pairsPerSecond)).median())
							+ " pairs/s"));
			for (String peer : PEERS) {
				cells.add(UncontendedCost.ratio(samples, "ours", peer, UncontendedCost.Sample::pairsPerSecond).cell("%.2f"));
			}
			md.append(row(cells.toArray(String[]::new)));
		}
		if (run.semaphores() != null) {
			JmhResults semaphores = run.semaphores();
			for (String benchmark : List.of(SemaphoreRunner.S1, SemaphoreRunner.S2)) {
				md.append(row(benchmark.equals(SemaphoreRunner.S1) ? "S1 semaphore of 4 permits, 1 thread"
						: "S2 semaphore of 4 permits, 2 instances x 8 threads", fmt(semaphores.ops(benchmark, "ours")) + " pairs/s",
						semaphores.ratio(benchmark, "ours", "redisson").cell("%.2f") + " (RPermitExpirableSemaphore)", "-", "-", "-"));
			}
		}
		if (run.redlock() != null) {
			for (RedlockBenchmark.NodeRun redlock : run.redlock()) {
				redlockRow(md, redlock, "Redlock on " + redlock.nodes() + " nodes, uncontended, 1 thread", "pairs/s",
						(round) -> round.uncontended().pairsPerSecond());
				redlockRow(md, redlock, "Redlock on " + redlock.nodes() + " nodes, one key, 2 instances x 4 threads",
						"acq/s", (round) -> round.contended().acquisitionsPerSecond());
			}
		}
		md.append("\n");
		if (run.locks() != null && run.cost() != null) {
			md.append("W1 is measured twice: in JMH forks, where each peer runs alone for a few seconds, so a busy ")
				.append("machine moves a single thread's ratio most; and in one JVM with the peers taking turns of ")
				.append(UncontendedCost.BLOCK).append(" pairs, where a slow stretch falls on every peer alike: the ")
				.append("steadier ratio.\n");
		}
		if (run.cost() != null) {
			List<UncontendedCost.Sample> samples = run.cost().samples();
			md.append("The fencing token: a floor that also takes a token from Redis's clock (`token-floor`) runs ")
				.append(UncontendedCost.ratio(samples, "token-floor", "floor", UncontendedCost.Sample::pairsPerSecond).cell("%.2f"))
				.append(" of the floor's pairs/s; this library runs ")
				.append(UncontendedCost.ratio(samples, "ours", "token-floor", UncontendedCost.Sample::pairsPerSecond).cell("%.2f"))
				.append(" of that (see the cost chart and \"W1 cost per uncontended lock+unlock pair\").\n");
		}
		if (run.cluster() != null) {
			md.append(clusterSummary(run.cluster()));
		}
		return md.toString();
	}

	private static void lockRow(StringBuilder md, JmhResults locks, String name, String what, String unit) {
		String benchmark = LockWorkloads.benchmark(name);
		double ops = locks.ops(benchmark, "ours");
		if (Double.isNaN(ops)) {
			return;
		}
		List<String> cells = new ArrayList<>(List.of(name + ": " + what, fmt(ops) + " " + unit));
		for (String peer : PEERS) {
			cells.add(locks.ratio(benchmark, "ours", peer).cell("%.2f"));
		}
		md.append(row(cells.toArray(String[]::new)));
	}

	private static void redlockRow(StringBuilder md, RedlockBenchmark.NodeRun redlock, String what, String unit,
			ToDoubleFunction<Round> figure) {
		md.append(row(what, fmt(Spread.of(redlock.figures("ours", figure)).median()) + " " + unit,
				redlock.ratio(figure).cell("%.2f") + " (RedissonRedLock)", "-", "-", "-"));
	}

	/** Sharded over classic notifications, per pairing of the run (classic, sharded, sharded, classic). */
	private static String clusterSummary(List<ClusterNotificationRunner.ModeRun> runs) {
		List<Double> classic = figures(runs, NotificationMode.CLASSIC, ClusterNotificationRunner.ModeRun::opsPerSecond);
		List<Double> sharded = figures(runs, NotificationMode.SHARDED, ClusterNotificationRunner.ModeRun::opsPerSecond);
		return "On a Redis Cluster of " + runs.get(0).masters() + " primaries (one replica each), sharded "
				+ "notifications take " + fmt(Spread.of(figures(runs, NotificationMode.SHARDED,
						ClusterNotificationRunner.ModeRun::busPerNotification)).median())
				+ " cluster-bus messages per notification against " + fmt(Spread.of(figures(runs,
						NotificationMode.CLASSIC, ClusterNotificationRunner.ModeRun::busPerNotification)).median())
				+ " for classic pub/sub; contended throughput sharded / classic " + Spread.ratios(sharded, classic).cell("%.2f")
				+ " (see \"Notifications on Redis Cluster\").\n";
	}

	private static List<Double> figures(List<ClusterNotificationRunner.ModeRun> runs, NotificationMode mode,
			ToDoubleFunction<ClusterNotificationRunner.ModeRun> figure) {
		return runs.stream().filter((run) -> run.mode() == mode).map(figure::applyAsDouble).toList();
	}

	private static String semaphores(JmhResults run) {
		StringBuilder md = new StringBuilder("## Semaphores: 4 permits on one key, against Redisson\n\n");
		md.append("**ours**: `template.acquire(LockDefinition.builder(key).permits(4).lease(30s))`, `handle.close()`; ")
			.append("**redisson**: `RPermitExpirableSemaphore` (`acquire(30 s)`, `release(permitId)`). Each op is ")
			.append("one acquire+release pair around a tiny critical section. JMH in sample-time mode, ")
			.append(run.iterations()).append(". `run.sh semaphore` adds S3 (1 ms inside) and the commands per pair.\n\n");
		md.append(row("workload", "peer", "pairs/s", "x redisson", "p50 µs", "p99 µs", "slower/faster instance",
				"most inside", "violations"));
		md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
		for (String benchmark : List.of(SemaphoreRunner.S1, SemaphoreRunner.S2)) {
			for (String peer : SemaphorePeer.ALL) {
				md.append(row(benchmark.equals(SemaphoreRunner.S1) ? "S1, 1 thread" : "S2, 2 instances x 8 threads", peer,
						fmt(run.ops(benchmark, peer)), run.ratio(benchmark, peer, "redisson").cell("%.2f"),
						fmt(run.percentile(benchmark, peer, 50)), fmt(run.percentile(benchmark, peer, 99)),
						run.fairness(benchmark, peer), count(run.extra(benchmark, peer, "mostInside")),
						count(run.extra(benchmark, peer, "violations"))));
			}
		}
		return md.toString();
	}

	private static RedlockReport redlockReport(RunResults run) {
		RedlockReport report = new RedlockReport(run.redlock().get(0).settings());
		for (RedlockBenchmark.NodeRun redlock : run.redlock()) {
			report.add(redlock.nodes(), redlock.rounds(), redlock.counts());
		}
		return report;
	}

	private static String cluster(List<ClusterNotificationRunner.ModeRun> runs) {
		StringBuilder md = new StringBuilder("## Notifications on Redis Cluster: classic against sharded\n\n");
		md.append("This library only, on a cluster of its own; each mode twice (classic, sharded, sharded, classic). ")
			.append("Bus messages: `cluster_stats_messages_publish_sent` + `..._publishshard_sent` over every node, per ")
			.append("notification (a reader's release that a writer of the other instance waited for). Contended: one ")
			.append("reentrant lock, 2 instances x 4 threads. `run.sh cluster-notifications` runs 3 and 6 primaries, longer.\n\n");
		md.append("| primaries (+1 replica each) | mode | bus messages per notification | release to waiter, median / p99 (ms) | contended ops/s (2 instances x 4 threads) |\n|---|---|---|---|---|\n");
		for (ClusterNotificationRunner.ModeRun mode : runs) {
			md.append(mode.row());
		}
		return md.toString();
	}

}
