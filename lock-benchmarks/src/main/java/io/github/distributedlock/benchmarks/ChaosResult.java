package io.github.distributedlock.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.distributedlock.test.ExclusionChecker;

/**
 * What one run of the chaos runner saw: the checker's counts, what was injected, and the recovery times.
 *
 * @param fault the fault injected
 * @param peer the library
 * @param checker the run's checker
 * @param injected what the fault injection did, in words
 * @param recoveries milliseconds from each fault to the next body that entered
 */
record ChaosResult(String fault, String peer, ExclusionChecker checker, String injected, List<Long> recoveries) {

	/**
	 * Formats results as a Markdown table.
	 * @param results the runs
	 * @param when the date, run length, machine and load, for the line above the table
	 * @return the table
	 */
	static String table(List<ChaosResult> results, String when) {
		StringBuilder table = new StringBuilder("Chaos run: ").append(when).append("\n\n")
			.append("| fault | peer | calls | bodies | bodies/s | failed calls | most inside | overlaps | lost updates "
					+ "| token regressions | longest gap between bodies | recovery after a fault, median (lower) / max | "
					+ "injected | most frequent failure |\n")
			.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n");
		for (ChaosResult result : results) {
			ExclusionChecker checker = result.checker();
			table.append(String.format("| %s | %s | %,d | %,d | %,.0f | %,d (%.2f %%) | %d | %d | %d | %s | %,d ms | %s | %s | %s |%n",
					result.fault(), result.peer(), checker.calls(), checker.bodies(),
					checker.bodies() / Math.max(0.001, checker.seconds()), checker.failedCalls(),
					100 * (1 - checker.successRate()), checker.mostInside(), checker.overlaps(), checker.lostUpdates(),
					result.peer().startsWith("ours") ? Integer.toString(checker.tokenRegressions()) : "n/a (no tokens)",
					checker.longestGapMillis(), result.recoveryMedianAndMax(), result.injected(),
					checker.failures(1).replace("|", "/")));
		}
		return table.toString();
	}

	private String recoveryMedianAndMax() {
		if (this.recoveries.isEmpty()) {
			return "—";
		}
		List<Long> sorted = new ArrayList<>(this.recoveries);
		Collections.sort(sorted);
		return String.format("%,d / %,d ms", sorted.get((sorted.size() - 1) / 2), sorted.get(sorted.size() - 1));
	}

}
