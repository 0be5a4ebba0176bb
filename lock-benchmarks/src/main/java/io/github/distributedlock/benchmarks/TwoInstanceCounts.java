package io.github.distributedlock.benchmarks;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * What the critical section of a benchmark on one key through two clients (as two application instances, W3m,
 * S2, S3) counts, shared by the states of those benchmarks: the holders inside now, the times it found too many,
 * and each instance's acquisitions in the measurement iterations (the fairness between them). The threads of
 * both instances share it (a {@code Scope.Benchmark} state): thread-safe.
 */
public abstract class TwoInstanceCounts {

	final AtomicLong[] acquisitions = { new AtomicLong(), new AtomicLong() };

	final AtomicInteger inside = new AtomicInteger();

	final AtomicLong violations = new AtomicLong();

	/** Whether the iteration running is measured: warm-up acquisitions do not count for the fairness. */
	volatile boolean measuring;

	/**
	 * Notes whether the iteration that starts is measured.
	 * @param params the iteration's JMH parameters
	 */
	@Setup(Level.Iteration)
	public void iteration(IterationParams params) {
		this.measuring = params.getType() == IterationType.MEASUREMENT;
	}

	/**
	 * Writes the slower and the faster instance's acquisitions ({@code slowestInstance}, {@code fastestInstance})
	 * and the violations to the {@link Extras} of the benchmark and peer.
	 * @param benchmark the benchmark's name
	 * @param peer the peer
	 * @param violationsName the name the violations are written under
	 */
	void putCounts(String benchmark, String peer, String violationsName) {
		Extras.put(benchmark, peer, "slowestInstance", Math.min(this.acquisitions[0].get(), this.acquisitions[1].get()));
		Extras.put(benchmark, peer, "fastestInstance", Math.max(this.acquisitions[0].get(), this.acquisitions[1].get()));
		Extras.put(benchmark, peer, violationsName, this.violations.get());
	}

}
