package io.github.distributedlock.benchmarks;

import java.time.LocalDate;
import java.util.Locale;
import java.util.Map;

import static io.github.distributedlock.benchmarks.Markdown.count;
import static io.github.distributedlock.benchmarks.Markdown.fmt;
import static io.github.distributedlock.benchmarks.Markdown.met;
import static io.github.distributedlock.benchmarks.Markdown.ratio;
import static io.github.distributedlock.benchmarks.Markdown.row;

/**
 * The Markdown report of {@link SemaphoreRunner}: S1 to S3 per peer with the ratios to Redisson, the requests
 * per pair, and the targets.
 */
final class SemaphoreReport {

	private final JmhResults run;

	private final Map<String, long[]> uncontended;

	private final Map<String, long[]> contended;

	/**
	 * @param run the finished run
	 * @param uncontended per peer: requests, commands inside scripts, script µs, pairs (one client, one thread)
	 * @param contended per peer: the same in S2's setup
	 */
	SemaphoreReport(JmhResults run, Map<String, long[]> uncontended, Map<String, long[]> contended) {
		this.run = run;
		this.uncontended = uncontended;
		this.contended = contended;
	}

	String markdown() {
		String s1 = SemaphoreRunner.S1;
		String s2 = SemaphoreRunner.S2;
		StringBuilder md = new StringBuilder();
		md.append("## Semaphores (issue 20): ").append(SemaphoreBenchmarks.PERMITS).append(" permits, one key\n\n");
		md.append("Produced by `lock-benchmarks/run.sh semaphore` on ").append(LocalDate.now()).append(", ").append(Markdown.machine())
			.append(", one loopback `redis-server`. JMH, ").append(SemaphoreRunner.ROUNDS)
			.append(" rounds (the peers in alternating order) of 1 fork per peer and mode, 3 x 1 s warm-up, 3 x 2 s ")
			.append("measurement; throughputs are the median of all measurement iterations, latencies the median of ")
			.append("the rounds' percentiles. **ours**: `template.acquire(LockDefinition.builder(key).permits(4).lease(30s))`, ")
			.append("`handle.close()` (the watchdog renews the lease); **redisson**: `RPermitExpirableSemaphore` ")
			.append("(`trySetPermits(4)`, `acquire(30 s)`, `release(permitId)`; no renewal). Each op is one ")
			.append("acquire+release pair around a tiny critical section.\n\n");

		md.append("S2: 2 clients (as 2 application instances) x 8 threads, 16 threads on one key, a tiny critical ")
			.append("section. S3: the same with a critical section of 1 ms (a park, as a call to a partner API waits): ")
			.append("there the permits bound the rate (4 permits / 1 ms: at most 4,000 pairs/s; a lock would allow ")
			.append("1,000). `most inside` is the most holders the critical section saw at once (in S3 it should be 4: ")
			.append("every permit used), `violations` the times it saw more than 4 (must be 0).\n\n");
		md.append("| workload | peer | pairs/s | x redisson | p50 µs | p99 µs | p99 x redisson | slower/faster instance | most inside | violations |\n");
		md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (String benchmark : new String[] { s2, SemaphoreRunner.S3 }) {
			for (String peer : SemaphorePeer.ALL) {
				md.append(row(benchmark.equals(s2) ? "S2" : "S3", peer, fmt(this.run.ops(benchmark, peer)),
						ratio(this.run.ops(benchmark, peer), this.run.ops(benchmark, "redisson")),
						fmt(this.run.percentile(benchmark, peer, 50)), fmt(this.run.percentile(benchmark, peer, 99)),
						ratio(this.run.percentile(benchmark, peer, 99), this.run.percentile(benchmark, "redisson", 99)),
						this.run.fairness(benchmark, peer), extra(benchmark, peer, "mostInside"),
						extra(benchmark, peer, "violations")));
			}
		}

		md.append("\nS1: one thread, uncontended.\n\n");
		md.append("| peer | S1 pairs/s | x redisson | p50 µs | p99 µs |\n|---|---:|---:|---:|---:|\n");
		for (String peer : SemaphorePeer.ALL) {
			md.append(row(peer, fmt(this.run.ops(s1, peer)), ratio(this.run.ops(s1, peer), this.run.ops(s1, "redisson")),
					fmt(this.run.percentile(s1, peer, 50)), fmt(this.run.percentile(s1, peer, 99))));
		}

		md.append("\nRedis commands per acquire+release pair, from `INFO commandstats` after `CONFIG RESETSTAT`: ")
			.append("requests the clients sent (script calls, (P)SUBSCRIBE, PING and other top-level commands) and ")
			.append("commands run inside the scripts. Uncontended: 1,000 pairs of one thread of one client. ")
			.append("Contended: S2's setup outside JMH for a few seconds (renewals, subscriptions and grants included).\n\n");
		md.append("| peer | uncontended: client requests | commands inside scripts | script µs in Redis | contended: client requests | commands inside scripts | pairs counted |\n");
		md.append("|---|---:|---:|---:|---:|---:|---:|\n");
		for (String peer : SemaphorePeer.ALL) {
			long[] u = this.uncontended.get(peer);
			long[] c = this.contended.get(peer);
			md.append(row(peer, perPair(u, 0), perPair(u, 1), perPair(u, 2), perPair(c, 0), perPair(c, 1),
					(c == null) ? "-" : String.format(Locale.ROOT, "%,d", c[3])));
		}

		md.append("\n| target | measured | met |\n|---|---|:-:|\n");
		double throughput = this.run.ops(s2, "ours") / this.run.ops(s2, "redisson");
		double p99 = this.run.percentile(s2, "ours", 99) / this.run.percentile(s2, "redisson", 99);
		md.append(row("S2 pairs/s >= 1.0x Redisson's", fmt(throughput), met(throughput >= 1)));
		md.append(row("S2 p99 < Redisson's (ratio)", fmt(p99), met(p99 < 1)));
		long[] ours = this.uncontended.get("ours");
		double requests = (ours == null) ? Double.NaN : (double) ours[0] / ours[3];
		md.append(row("2 client requests per uncontended pair", fmt(requests), met(Math.round(requests * 100) <= 200)));
		double s3 = this.run.ops(SemaphoreRunner.S3, "ours") / this.run.ops(SemaphoreRunner.S3, "redisson");
		md.append(row("S3 (1 ms inside) pairs/s >= 1.0x Redisson's (not a target of the issue)", fmt(s3), met(s3 >= 1)));
		Long violations2 = this.run.extra(s2, "ours", "violations");
		Long violations3 = this.run.extra(SemaphoreRunner.S3, "ours", "violations");
		Long most = this.run.extra(SemaphoreRunner.S3, "ours", "mostInside");
		md.append(row("never more than 4 inside (S2, S3), all 4 used (S3)", extra(s2, "ours", "violations") + " + "
				+ extra(SemaphoreRunner.S3, "ours", "violations") + " violations, at most "
				+ extra(SemaphoreRunner.S3, "ours", "mostInside") + " inside",
				met(violations2 != null && violations2 == 0 && violations3 != null && violations3 == 0 && most != null
						&& most == SemaphoreBenchmarks.PERMITS)));
		return md.toString();
	}

	private String extra(String benchmark, String peer, String name) {
		return count(this.run.extra(benchmark, peer, name));
	}

	private static String perPair(long[] counts, int index) {
		return (counts == null || counts[3] == 0) ? "-" : fmt((double) counts[index] / counts[3]);
	}

}
