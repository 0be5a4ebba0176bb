package io.github.distributedlock.benchmarks;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Markdown report of {@link RedlockBenchmark}: per node count, one row per round with both peers' numbers and
 * the ratio ours/Redisson, the ratios' median and spread (lowest–highest) over the rounds with the issue's
 * target (at least 1.5x {@code RedissonRedLock}'s uncontended pairs/s on 3 nodes), and the commands per
 * uncontended pair summed over the nodes and on each node. Not thread-safe.
 */
final class RedlockReport {

	/** The target: ours/Redisson uncontended pairs/s on 3 nodes. */
	static final double TARGET = 1.5;

	private final StringBuilder sections = new StringBuilder();

	private final String settings;

	private final int pairs;

	/**
	 * @param settings how the node counts were measured
	 */
	RedlockReport(RedlockBenchmark.Settings settings) {
		this.pairs = settings.pairs();
		this.settings = settings.rounds() + ((settings.rounds() == 1) ? " round" : " rounds")
				+ " (peers in alternating order), each measurement " + settings.seconds() + " s after "
				+ settings.warmUpSeconds() + " s of warm-up; contended: 2 clients x " + settings.threads()
				+ " threads on one key, tryLock(" + RedlockMeasurements.CONTENDED_WAIT_SECONDS
				+ " s) then unlock" + (RedlockBenchmark.FROZEN ? ", with the last node frozen (kill -STOP) throughout" : "")
				+ "; commands: " + settings.pairs() + " uncontended pairs of one thread";
	}

	/**
	 * What one peer measured in one round.
	 * @param round from 1
	 * @param peer {@code ours} or {@code redisson}
	 * @param uncontended the uncontended measurement
	 * @param contended the contended measurement
	 */
	record Round(int round, String peer, RedlockMeasurements.Uncontended uncontended,
			RedlockMeasurements.Contended contended) {

		String summary() {
			return String.format(Locale.ROOT, "uncontended %s pairs/s (p50 %s us, p99 %s us), contended %s acq/s (%d timed out)",
					Markdown.fmt(this.uncontended.pairsPerSecond()), Markdown.fmt(this.uncontended.p50Micros()),
					Markdown.fmt(this.uncontended.p99Micros()), Markdown.fmt(this.contended.acquisitionsPerSecond()),
					this.contended.timedOut());
		}

	}

	/**
	 * Adds the section of one node count.
	 * @param nodes N
	 * @param rounds every peer's result of every round
	 * @param counts each peer's command counts per node
	 */
	void add(int nodes, List<Round> rounds, Map<String, List<CommandStats>> counts) {
		StringBuilder out = this.sections;
		out.append("\n## ").append(nodes).append(" nodes (quorum ").append(nodes / 2 + 1).append(")\n\n");
		out.append(Markdown.row("round", "first", "ours pairs/s", "Redisson pairs/s", "ratio", "ours p50 / p99 us",
				"Redisson p50 / p99 us", "p99 ratio", "ours contended acq/s", "Redisson contended acq/s", "ratio",
				"timed out ours / Redisson"));
		out.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		List<Double> pairsRatios = new ArrayList<>();
		List<Double> p99Ratios = new ArrayList<>();
		List<Double> contendedRatios = new ArrayList<>();
		int last = rounds.stream().mapToInt(Round::round).max().orElse(0);
		for (int r = 1; r <= last; r++) {
			Round ours = find(rounds, r, "ours");
			Round redisson = find(rounds, r, "redisson");
			int round = r;
			// the rounds are listed in the order they ran
			String first = rounds.stream().filter((x) -> x.round() == round).findFirst().map(Round::peer).orElse("");
			pairsRatios.add(ours.uncontended().pairsPerSecond() / redisson.uncontended().pairsPerSecond());
			p99Ratios.add(ours.uncontended().p99Micros() / redisson.uncontended().p99Micros());
			contendedRatios.add(ours.contended().acquisitionsPerSecond() / redisson.contended().acquisitionsPerSecond());
			out.append(Markdown.row(Integer.toString(r), first, Markdown.fmt(ours.uncontended().pairsPerSecond()),
					Markdown.fmt(redisson.uncontended().pairsPerSecond()),
					Markdown.ratio(ours.uncontended().pairsPerSecond(), redisson.uncontended().pairsPerSecond()),
					latency(ours), latency(redisson),
					Markdown.ratio(ours.uncontended().p99Micros(), redisson.uncontended().p99Micros()),
					Markdown.fmt(ours.contended().acquisitionsPerSecond()),
					Markdown.fmt(redisson.contended().acquisitionsPerSecond()),
					Markdown.ratio(ours.contended().acquisitionsPerSecond(),
							redisson.contended().acquisitionsPerSecond()),
					ours.contended().timedOut() + " / " + redisson.contended().timedOut()));
		}
		out.append("\nRatios ours/Redisson over the rounds, median (lowest–highest): uncontended pairs/s ")
			.append(spread(pairsRatios))
			.append("; uncontended p99 ")
			.append(spread(p99Ratios))
			.append(" (below 1: ours is faster); contended acquisitions/s ")
			.append(spread(contendedRatios))
			.append(".\n");
		if (nodes == 3) {
			out.append("Target (issue 30): ours at least ").append(TARGET).append("x RedissonRedLock's uncontended pairs/s on 3 nodes: ")
				.append(Markdown.met(!pairsRatios.isEmpty() && Collections.min(pairsRatios) >= TARGET))
				.append(" (in every round).\n");
		}
		commands(nodes, counts);
	}

	private void commands(int nodes, Map<String, List<CommandStats>> counts) {
		StringBuilder out = this.sections;
		out.append("\nRedis commands per uncontended lock+unlock pair (INFO commandstats, ").append(this.pairs)
			.append(" pairs): requests are what the client sent (script calls and other top-level commands), "
					+ "inside what scripts ran; per node: requests/pair on node 1, 2, ...\n\n");
		out.append(Markdown.row("peer", "requests/pair, all nodes", "inside scripts/pair, all nodes",
				"requests/pair per node", "calls/pair by command, all nodes"));
		out.append("|---|---:|---:|---|---|\n");
		for (Map.Entry<String, List<CommandStats>> entry : counts.entrySet()) {
			long requests = 0;
			long inside = 0;
			List<String> perNode = new ArrayList<>();
			Map<String, Long> byCommand = new TreeMap<>();
			for (CommandStats node : entry.getValue()) {
				long[] counted = node.requestsInsideScriptMicros();
				requests += counted[0];
				inside += counted[1];
				perNode.add(perPair(counted[0]));
				node.withoutOwn().forEach((command, calls) -> byCommand.merge(command, calls, Long::sum));
			}
			List<String> commands = new ArrayList<>();
			byCommand.forEach((command, calls) -> commands.add(command + " " + perPair(calls)));
			out.append(Markdown.row(entry.getKey(), perPair(requests), perPair(inside), String.join(" / ", perNode),
					String.join(", ", commands)));
		}
	}

	private String perPair(long calls) {
		return String.format(Locale.ROOT, "%.2f", (double) calls / this.pairs);
	}

	private static String latency(Round round) {
		return Markdown.fmt(round.uncontended().p50Micros()) + " / " + Markdown.fmt(round.uncontended().p99Micros());
	}

	private static Round find(List<Round> rounds, int round, String peer) {
		return rounds.stream()
			.filter((r) -> r.round() == round && r.peer().equals(peer))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No result of " + peer + " in round " + round));
	}

	private static String spread(List<Double> ratios) {
		if (ratios.isEmpty()) {
			return "-";
		}
		List<Double> sorted = new ArrayList<>(ratios);
		Collections.sort(sorted);
		double median = (sorted.size() % 2 == 1) ? sorted.get(sorted.size() / 2)
				: (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
		return String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", median, sorted.get(0), sorted.get(sorted.size() - 1));
	}

	/**
	 * Returns the node counts' sections under a heading of their own, one level below it, for a page that shows
	 * them among others.
	 * @param heading the section's title
	 * @return the Markdown text
	 */
	String section(String heading) {
		return "## " + heading + "\n\n" + this.settings + ". Both peers renew their holds by watchdog.\n"
				+ this.sections.toString().replace("\n## ", "\n### ");
	}

	/**
	 * Returns the whole report.
	 * @param loadBefore {@code /proc/loadavg} before the run
	 * @param loadAfter {@code /proc/loadavg} after it
	 * @return the Markdown text
	 */
	String markdown(String loadBefore, String loadAfter) {
		return "# Redlock: this library's store=redlock against RedissonRedLock\n\n" + Instant.now() + ", "
				+ Markdown.machine() + ", load average before: " + loadBefore + ", after: " + loadAfter + ".\n"
				+ this.settings + ". Both peers renew their holds by watchdog (ours: 30 s lease; Redisson: no lease "
				+ "given). Latency is of one lock+unlock pair.\n" + this.sections;
	}

}
