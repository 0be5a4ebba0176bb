package io.github.distributedlock.benchmarks;

import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import static io.github.distributedlock.benchmarks.Markdown.count;
import static io.github.distributedlock.benchmarks.Markdown.fmt;
import static io.github.distributedlock.benchmarks.Markdown.met;
import static io.github.distributedlock.benchmarks.Markdown.ratio;
import static io.github.distributedlock.benchmarks.Markdown.row;

/**
 * The Markdown report of {@link BenchmarkRunner} ({@code RESULTS.md}): W1 to W6 per peer with the ratios to the
 * floor (or Redisson), the Redis commands per pair, and the benchmark issue's targets checked against the run.
 * Reads a finished run; not thread-safe.
 */
final class BenchmarkReport {

	private final JmhResults run;

	private final int rounds;

	private final boolean quick;

	private final Map<String, long[]> commands;

	/**
	 * @param run the finished run
	 * @param rounds the rounds it ran
	 * @param quick whether it was a quick run
	 * @param commands per peer: requests, commands inside scripts, pairs, script µs
	 */
	BenchmarkReport(JmhResults run, int rounds, boolean quick, Map<String, long[]> commands) {
		this.run = run;
		this.rounds = rounds;
		this.quick = quick;
		this.commands = commands;
	}

	String markdown() {
		StringBuilder md = new StringBuilder();
		md.append("# Benchmark results\n\n");
		md.append("Produced by `lock-benchmarks/run.sh` on ").append(LocalDate.now()).append(": ")
			.append(Markdown.machine())
			.append(", one loopback `redis-server`. JMH, ").append(this.rounds)
			.append((this.rounds == 1) ? " round" : " rounds (the peers in alternating order)").append(" of 1 fork per peer, ")
			.append(this.quick ? "1 x 1 s warm-up, 1 x 1 s measurement (a quick run: wide error)" : "3 x 1 s warm-up, 3 x 2 s measurement")
			.append(". Throughputs are the median of all measurement iterations of all rounds; latencies the median of ")
			.append("the rounds' percentiles; violations add up over the rounds, and the least fair round is shown. ")
			.append("Every number is from this one run; compare ratios, not absolute values.\n\n");
		md.append("Peers: **ours** (this library, `getLock()`), **redisson** (`RLock`/`RReadWriteLock` 4.7.0), ")
			.append("**si-spin** / **si-pubsub** (Spring Integration `RedisLockRegistry` 7.1.0, SPIN_LOCK / PUB_SUB_LOCK), ")
			.append("**floor** (raw Lettuce: one EVALSHA `SET NX PX` to acquire, one compare-and-delete to release; ")
			.append("a blocked `lock()` retries every 50 µs).\n\n");

		md.append("## W1, W2: uncontended lock+unlock pairs\n\n");
		md.append("| peer | W1 pairs/s (1 thread) | x floor | W1 p50 µs | W1 p99 µs | W2 pairs/s (16 threads, own keys) | x floor |\n");
		md.append("|---|---:|---:|---:|---:|---:|---:|\n");
		for (String peer : LockPeer.ALL) {
			md.append(row(peer, fmt(ops("w1OwnKey", peer)), ratio(ops("w1OwnKey", peer), ops("w1OwnKey", "floor")),
					fmt(percentile("w1OwnKey", peer, 50)), fmt(percentile("w1OwnKey", peer, 99)),
					fmt(ops("w2OwnKeys16Threads", peer)),
					ratio(ops("w2OwnKeys16Threads", peer), ops("w2OwnKeys16Threads", "floor"))));
		}

		md.append("\n## W3, W3x: one key, 8 threads (blocking `lock()`, tiny critical section)\n\n");
		md.append("W3: 8 threads of one client. W3x: 8 clients (as 8 application instances), one thread each. ")
			.append("`violations` counts a thread finding another inside: it must be 0.\n\n");
		md.append("| peer | W3 acq/s | x floor | W3 p50 µs | W3 p99 µs | W3 violations | W3x acq/s | x floor | W3x slowest/fastest instance | W3x violations |\n");
		md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (String peer : LockPeer.ALL) {
			md.append(row(peer, fmt(ops("w3OneKey8Threads", peer)),
					ratio(ops("w3OneKey8Threads", peer), ops("w3OneKey8Threads", "floor")),
					fmt(percentile("w3OneKey8Threads", peer, 50)), fmt(percentile("w3OneKey8Threads", peer, 99)),
					extra("w3OneKey8Threads", peer, "violations"), fmt(ops("w3xOneKey8Instances", peer)),
					ratio(ops("w3xOneKey8Instances", peer), ops("w3xOneKey8Instances", "floor")),
					this.run.fairness("w3xOneKey8Instances", peer),
					extra("w3xOneKey8Instances", peer, "violationsAcrossInstances")));
		}
		md.append("\nW3 p50/p99 are of the whole op (wait, tiny critical section, release): the time to acquire ")
			.append("plus one release round trip.\n");

		md.append("\n## W3m: one key, 2 instances x 4 threads (not a target: the usual case in production)\n\n");
		md.append("| peer | acq/s | x floor | slower/faster instance | violations |\n|---|---:|---:|---:|---:|\n");
		for (String peer : LockPeer.ALL) {
			md.append(row(peer, fmt(ops("w3mOneKey2Instances4ThreadsEach", peer)),
					ratio(ops("w3mOneKey2Instances4ThreadsEach", peer), ops("w3mOneKey2Instances4ThreadsEach", "floor")),
					this.run.fairness("w3mOneKey2Instances4ThreadsEach", peer),
					extra("w3mOneKey2Instances4ThreadsEach", peer, "violationsAcrossInstances")));
		}

		md.append("\n## W4: reentrant pairs (lock, lock, unlock, unlock)\n\n");
		md.append("| peer | ops/s | x redisson |\n|---|---:|---:|\n");
		for (String peer : List.of("ours", "redisson", "si-spin", "si-pubsub")) {
			md.append(row(peer, fmt(ops("w4Reentrant", peer)), ratio(ops("w4Reentrant", peer), ops("w4Reentrant", "redisson"))));
		}

		md.append("\n## W5: read/write, 8 reader threads + 1 writer on one lock\n\n");
		md.append("| peer | reads/s | writes/s | writer's longest wait | violations |\n|---|---:|---:|---:|---:|\n");
		for (String peer : List.of("ours", "redisson")) {
			Long wait = this.run.extra("w5ReadWrite", peer, "longestWriterWaitMicros");
			md.append(row(peer, fmt(secondary("w5ReadWrite", peer, "reader")), fmt(secondary("w5ReadWrite", peer, "writer")),
					(wait == null) ? "-" : fmt(wait / 1000.0) + " ms", extra("w5ReadWrite", peer, "violations")));
		}

		md.append("\n## W6: the annotation's overhead (ours, 1 thread, uncontended)\n\n");
		md.append("| path | ops/s | x template.execute |\n|---|---:|---:|\n");
		for (String path : List.of("w6Annotation", "w6AnnotationObserved", "w6TemplateExecute", "w6GetLock")) {
			md.append(row(path, fmt(ops(path, "ours")), ratio(ops(path, "ours"), ops("w6TemplateExecute", "ours"))));
		}
		double plainNanos = 1e9 / ops("w6StubAnnotation", "ours");
		double observedNanos = 1e9 / ops("w6StubAnnotationObserved", "ours");
		md.append("\nWithout a store (`StubLockClient`), a call through the annotation takes ").append(fmt(plainNanos))
			.append(" ns, and ").append(fmt(observedNanos))
			.append(" ns with the meter and observation registries: observability costs each call about ")
			.append(fmt(observedNanos - plainNanos)).append(" ns, ")
			.append(fmt(100 * (observedNanos - plainNanos) * ops("w6Annotation", "ours") / 1e9))
			.append(" % of a call on Redis.\n");

		md.append(targets());

		md.append("\n## Redis commands per uncontended lock+unlock pair\n\n");
		md.append("From `INFO commandstats` over ").append(this.commands.values().iterator().next()[2])
			.append(" pairs: requests the client sent (EVAL/EVALSHA and other top-level commands), commands run inside those scripts, ")
			.append("and the scripts' time in Redis (`usec`, which drifts far less with the machine than round trips do).\n\n");
		md.append("| peer | client requests | commands inside scripts | script µs in Redis |\n|---|---:|---:|---:|\n");
		this.commands.forEach((peer, counts) -> md.append(row(peer, fmt((double) counts[0] / counts[2]),
				fmt((double) counts[1] / counts[2]), fmt((double) counts[3] / counts[2]))));
		return md.toString();
	}

	/**
	 * The targets of the benchmark issue, checked against this run.
	 */
	private String targets() {
		double bestSiW3 = Math.max(ops("w3OneKey8Threads", "si-spin"), ops("w3OneKey8Threads", "si-pubsub"));
		double bestSiW2 = Math.max(ops("w2OwnKeys16Threads", "si-spin"), ops("w2OwnKeys16Threads", "si-pubsub"));
		double bestSiW4 = Math.max(ops("w4Reentrant", "si-spin"), ops("w4Reentrant", "si-pubsub"));
		double p99 = percentile("w3OneKey8Threads", "ours", 99);
		double peersP99 = Math.min(Math.min(percentile("w3OneKey8Threads", "redisson", 99),
				percentile("w3OneKey8Threads", "si-spin", 99)), percentile("w3OneKey8Threads", "si-pubsub", 99));
		Long slowest = this.run.extra("w3xOneKey8Instances", "ours", "slowestInstance");
		Long fastest = this.run.extra("w3xOneKey8Instances", "ours", "fastestInstance");
		double fairness = (slowest == null || fastest == null) ? Double.NaN : (double) slowest / fastest;
		Long wait = this.run.extra("w5ReadWrite", "ours", "longestWriterWaitMicros");
		double waitMillis = (wait == null) ? Double.NaN : wait / 1000.0;
		long[] ourCommands = this.commands.get("ours");
		StringBuilder md = new StringBuilder("\n## Targets\n\n| target | measured | met |\n|---|---|:-:|\n");
		target(md, "W1 >= 0.9x floor", ops("w1OwnKey", "ours") / ops("w1OwnKey", "floor"), 0.9, true);
		target(md, "W1 >= 1.15x Redisson", ops("w1OwnKey", "ours") / ops("w1OwnKey", "redisson"), 1.15, true);
		target(md, "W2 >= 0.8x floor", ops("w2OwnKeys16Threads", "ours") / ops("w2OwnKeys16Threads", "floor"), 0.8, true);
		target(md, "W2 >= 2x Redisson", ops("w2OwnKeys16Threads", "ours") / ops("w2OwnKeys16Threads", "redisson"), 2, true);
		target(md, "W2 >= 1.0x the better Spring Integration mode", ops("w2OwnKeys16Threads", "ours") / bestSiW2, 1, true);
		target(md, "W3 >= 1.0x the better Spring Integration mode", ops("w3OneKey8Threads", "ours") / bestSiW3, 1, true);
		target(md, "W3 >= 1.2x Redisson", ops("w3OneKey8Threads", "ours") / ops("w3OneKey8Threads", "redisson"), 1.2, true);
		target(md, "W3 p99 below every peer's (ratio to the lowest peer p99)", p99 / peersP99, 1, false);
		target(md, "W3x >= 2x Redisson", ops("w3xOneKey8Instances", "ours") / ops("w3xOneKey8Instances", "redisson"), 2, true);
		target(md, "W3x slowest instance >= 0.5x the fastest", fairness, 0.5, true);
		target(md, "W4 >= 1.0x the better Spring Integration mode", ops("w4Reentrant", "ours") / bestSiW4, 1, true);
		target(md, "W5 >= 50 writes/s while 8 readers loop", secondary("w5ReadWrite", "ours", "writer"), 50, true);
		target(md, "W5 writer's longest wait < 100 ms", waitMillis, 100, false);
		target(md, "W5 reads/s >= 0.8x Redisson's", secondary("w5ReadWrite", "ours", "reader")
				/ secondary("w5ReadWrite", "redisson", "reader"), 0.8, true);
		target(md, "W6 annotation costs < 5 % over template.execute (ratio of ops/s, >= 0.95)",
				ops("w6Annotation", "ours") / ops("w6TemplateExecute", "ours"), 0.95, true);
		target(md, "W6 with meter and observation registries costs < 10 % over without (ratio of ops/s, >= 0.90)",
				ops("w6AnnotationObserved", "ours") / ops("w6Annotation", "ours"), 0.90, true);
		target(md, "2 client commands per uncontended pair",
				(ourCommands == null) ? Double.NaN : (double) ourCommands[0] / ourCommands[2], 2, false);
		return md.toString();
	}

	private static void target(StringBuilder md, String target, double measured, double bound, boolean atLeast) {
		boolean met = !Double.isNaN(measured) && (atLeast ? measured >= bound : measured <= bound);
		md.append(row(target, fmt(measured), met(met)));
	}

	private double ops(String benchmark, String peer) {
		return this.run.ops(benchmark, peer);
	}

	private double secondary(String benchmark, String peer, String method) {
		return this.run.secondary(benchmark, peer, method);
	}

	private double percentile(String benchmark, String peer, double p) {
		return this.run.percentile(benchmark, peer, p);
	}

	private String extra(String benchmark, String peer, String name) {
		return count(this.run.extra(benchmark, peer, name));
	}

}
