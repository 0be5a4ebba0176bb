package io.github.distributedlock.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * S1 to S3 (issue 20): acquire+release pairs of a semaphore of {@value #PERMITS} permits on one key. S1: one
 * thread, uncontended. S2: {@value #THREADS} threads of two clients (as two application instances, 8 threads
 * each) on one key, a tiny critical section that counts the holders inside: more than {@value #PERMITS} is a
 * violation. S3: S2 with a critical section of {@value #WORK_MICROS} µs (a park, as a call to a partner API
 * would wait), where the permits, not the round trips, bound the rate ({@value #PERMITS} / 1 ms = 4,000 pairs/s
 * at most) and the most holders seen inside at once should be {@value #PERMITS}. Each op is one pair. Run by
 * {@link SemaphoreRunner} ({@code run.sh semaphore}) for this library and Redisson's
 * {@code RPermitExpirableSemaphore}.
 */
public class SemaphoreBenchmarks {

	static final int PERMITS = 4;

	static final int THREADS = 16;

	static final long WORK_MICROS = 1000;

	/** Two clients of the peer, each with the semaphore, and what the critical section saw. */
	@State(Scope.Benchmark)
	public static class TwoInstances extends TwoInstanceCounts {

		@Param({ "ours" })
		public String peer;

		final SemaphorePeer[] clients = new SemaphorePeer[2];

		final AtomicInteger mostInside = new AtomicInteger();

		@Setup(Level.Trial)
		public void setUp() {
			for (int i = 0; i < 2; i++) {
				this.clients[i] = SemaphorePeer.create(this.peer, "bench:semaphore", PERMITS);
			}
		}

		@TearDown(Level.Trial)
		public void tearDown(BenchmarkParams params) {
			String name = LockBenchmarks.name(params);
			putCounts(name, this.peer, "violations");
			Extras.put(name, this.peer, "mostInside", this.mostInside.get());
			for (SemaphorePeer client : this.clients) {
				client.close();
			}
		}

		void critical(int instance, long workNanos) {
			int now = this.inside.incrementAndGet();
			if (now > PERMITS) {
				this.violations.incrementAndGet();
			}
			this.mostInside.accumulateAndGet(now, Math::max);
			if (workNanos > 0) {
				LockSupport.parkNanos(workNanos);
			}
			this.inside.decrementAndGet();
			if (this.measuring) {
				this.acquisitions[instance].incrementAndGet();
			}
		}

	}

	@Benchmark
	@Threads(1)
	public void s1Uncontended(TwoInstances instances) throws InterruptedException {
		try (SemaphorePeer.Permit permit = instances.clients[0].acquire()) {
			instances.critical(0, 0);
		}
	}

	@Benchmark
	@Threads(THREADS)
	public void s2Permits4TwoInstances16Threads(TwoInstances instances, InstanceOfThread thread)
			throws InterruptedException {
		try (SemaphorePeer.Permit permit = instances.clients[thread.index].acquire()) {
			instances.critical(thread.index, 0);
		}
	}

	@Benchmark
	@Threads(THREADS)
	public void s3Permits4TwoInstances16ThreadsWork1ms(TwoInstances instances, InstanceOfThread thread)
			throws InterruptedException {
		try (SemaphorePeer.Permit permit = instances.clients[thread.index].acquire()) {
			instances.critical(thread.index, TimeUnit.MICROSECONDS.toNanos(WORK_MICROS));
		}
	}

}
