package io.github.distributedlock.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * W5: eight reader threads loop on one read/write lock while one writer loops on its write side. Reports
 * reads/s and writes/s (JMH's per-method results of the group) and the writer's longest wait.
 */
public class ReadWriteBenchmarks {

	@State(Scope.Group)
	public static class Shared {

		@Param({ "ours" })
		public String peer;

		LockPeer client;

		ReadWriteLock lock;

		final AtomicInteger readers = new AtomicInteger();

		final AtomicInteger writers = new AtomicInteger();

		final AtomicLong violations = new AtomicLong();

		final AtomicLong longestWriterWaitNanos = new AtomicLong();

		volatile boolean measuring;

		@Setup(Level.Trial)
		public void setUp() {
			this.client = LockPeer.create(this.peer);
			this.lock = this.client.readWriteLock("bench:rw");
		}

		@Setup(Level.Iteration)
		public void iteration(IterationParams params) {
			this.measuring = params.getType() == IterationType.MEASUREMENT;
		}

		@TearDown(Level.Trial)
		public void tearDown(BenchmarkParams params) {
			String name = LockBenchmarks.name(params);
			Extras.put(name, this.peer, "longestWriterWaitMicros", TimeUnit.NANOSECONDS.toMicros(this.longestWriterWaitNanos.get()));
			Extras.put(name, this.peer, "violations", this.violations.get());
			this.client.close();
		}

	}

	@Benchmark
	@Group("w5ReadWrite")
	@GroupThreads(8)
	public void reader(Shared shared) {
		shared.lock.readLock().lock();
		try {
			shared.readers.incrementAndGet();
			if (shared.writers.get() != 0) {
				shared.violations.incrementAndGet();
			}
			shared.readers.decrementAndGet();
		}
		finally {
			shared.lock.readLock().unlock();
		}
	}

	@Benchmark
	@Group("w5ReadWrite")
	@GroupThreads(1)
	public void writer(Shared shared) {
		long start = System.nanoTime();
		shared.lock.writeLock().lock();
		try {
			if (shared.measuring) {
				shared.longestWriterWaitNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
			}
			if (shared.writers.incrementAndGet() != 1 || shared.readers.get() != 0) {
				shared.violations.incrementAndGet();
			}
			shared.writers.decrementAndGet();
		}
		finally {
			shared.lock.writeLock().unlock();
		}
	}

}
