package io.github.distributedlock.benchmarks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

import org.openjdk.jmh.annotations.Mode;

import static io.github.distributedlock.benchmarks.Markdown.fmt;
import static io.github.distributedlock.benchmarks.Markdown.row;

/**
 * {@code run.sh annotation}: W6, the annotation's overhead ({@link AnnotationBenchmarks}: this library only, one
 * thread, uncontended), {@code bench.annotation.rounds} rounds (3) of every W6 benchmark in JMH forks on the Redis
 * of {@code -Dbench.redis.port}, and a Markdown table with each path's ratio to {@code template.execute} per round.
 * Arguments: the report's path.
 */
public final class AnnotationRunner {

	private static final List<String> PATHS = List.of("w6Annotation", "w6AnnotationObserved", "w6TemplateExecute",
			"w6GetLock");

	private AnnotationRunner() {
	}

	/**
	 * Runs the rounds and writes the report.
	 * @param args the report's path (default {@code lock-benchmarks/target/annotation.md})
	 * @throws Exception if a run fails
	 */
	public static void main(String[] args) throws Exception {
		Path report = Path.of((args.length > 0) ? args[0] : "lock-benchmarks/target/annotation.md");
		int rounds = Integer.getInteger("bench.annotation.rounds", 3);
		JmhResults run = new JmhResults(false);
		for (int round = 0; round < rounds; round++) {
			run.run("\\.w6", Mode.Throughput, null, "ours");
		}
		StringBuilder md = new StringBuilder("## W6: the annotation's overhead (ours, 1 thread, uncontended)\n\n");
		md.append("Produced by `lock-benchmarks/run.sh annotation` on ").append(LocalDate.now()).append(", ")
			.append(Markdown.machine()).append(": ").append(rounds).append((rounds == 1) ? " round" : " rounds").append(" of JMH, ").append(run.iterations())
			.append("; the ratio to `template.execute` is taken per round, median [lowest-highest].\n\n");
		md.append("| path | ops/s | x template.execute |\n|---|---:|---:|\n");
		for (String path : PATHS) {
			md.append(row(path, fmt(run.ops(path, "ours")), Spread.ratios(run.roundOps(path, "ours"), run.roundOps("w6TemplateExecute", "ours")).cell("%.2f")));
		}
		double plainNanos = 1e9 / run.ops("w6StubAnnotation", "ours");
		double observedNanos = 1e9 / run.ops("w6StubAnnotationObserved", "ours");
		md.append("\nWithout a store (`StubLockClient`), a call through the annotation takes ").append(fmt(plainNanos))
			.append(" ns, and ").append(fmt(observedNanos))
			.append(" ns with the meter and observation registries: observability costs each call about ")
			.append(fmt(observedNanos - plainNanos)).append(" ns, ")
			.append(fmt(100 * (observedNanos - plainNanos) * run.ops("w6Annotation", "ours") / 1e9))
			.append(" % of a call on Redis.\n");
		Files.createDirectories(report.toAbsolutePath().getParent());
		Files.writeString(report, md, StandardCharsets.UTF_8);
		System.out.println(md);
	}

}
