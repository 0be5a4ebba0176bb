package io.github.distributedlock.benchmarks;

import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * W1 to W4: lock+unlock pairs on own keys, on one contended key within one client and across clients, and
 * reentrant pairs. Each op is one pair (W4: lock, lock, unlock, unlock).
 */
public class LockBenchmarks {

	/** One client of the peer, shared by the benchmark's threads (one application instance). */
	@State(Scope.Benchmark)
	public static class Instance {

		@Param({ "ours" })
		public String peer;

		LockPeer client;

		/** Threads inside the contended key's critical section right now: never more than one. */
		final AtomicInteger inside = new AtomicInteger();

		final AtomicLong violations = new AtomicLong();

		@Setup(Level.Trial)
		public void setUp() {
			this.client = LockPeer.create(this.peer);
		}

		@TearDown(Level.Trial)
		public void tearDown(BenchmarkParams params) {
			Extras.put(name(params), this.peer, "violations", this.violations.get());
			this.client.close();
		}

		void critical() {
			if (this.inside.incrementAndGet() != 1) {
				this.violations.incrementAndGet();
			}
			this.inside.decrementAndGet();
		}

	}

	/** A key of the thread's own, in the shared client. */
	@State(Scope.Thread)
	public static class OwnKey {

		Lock lock;

		@Setup(Level.Trial)
		public void setUp(Instance instance) {
			this.lock = instance.client.lock("bench:" + UUID.randomUUID());
		}

	}

	/** The one contended key, in the shared client. */
	@State(Scope.Thread)
	public static class SharedKey {

		Lock lock;

		@Setup(Level.Trial)
		public void setUp(Instance instance) {
			this.lock = instance.client.lock("bench:shared");
		}

	}

	/** W3x: the contended key in a client of the thread's own, as one application instance per thread. */
	@State(Scope.Thread)
	public static class OwnClient {

		static final AtomicInteger inside = new AtomicInteger();

		static final AtomicLong violations = new AtomicLong();

		static final ConcurrentHashMap<Integer, AtomicLong> acquisitions = new ConcurrentHashMap<>();

		static final AtomicInteger ids = new AtomicInteger();

		LockPeer client;

		Lock lock;

		AtomicLong mine;

		boolean measuring;

		@Setup(Level.Trial)
		public void setUp(Instance instance) {
			this.client = LockPeer.create(instance.peer);
			this.lock = this.client.lock("bench:shared-x");
			this.mine = acquisitions.computeIfAbsent(ids.getAndIncrement(), (id) -> new AtomicLong());
		}

		@Setup(Level.Iteration)
		public void iteration(IterationParams params) {
			this.measuring = params.getType() == IterationType.MEASUREMENT;
		}

		@TearDown(Level.Trial)
		public void tearDown(Instance instance, BenchmarkParams params) {
			long min = acquisitions.values().stream().mapToLong(AtomicLong::get).min().orElse(0);
			long max = acquisitions.values().stream().mapToLong(AtomicLong::get).max().orElse(0);
			Extras.put(name(params), instance.peer, "slowestInstance", min);
			Extras.put(name(params), instance.peer, "fastestInstance", max);
			Extras.put(name(params), instance.peer, "violationsAcrossInstances", violations.get());
			this.client.close();
		}

	}

	/**
	 * W3m (not a target of the issue, the common case in production): the contended key in two clients, as two
	 * application instances, four threads each.
	 */
	@State(Scope.Benchmark)
	public static class TwoInstances extends TwoInstanceCounts {

		final Lock[] locks = new Lock[2];

		final LockPeer[] clients = new LockPeer[2];

		@Setup(Level.Trial)
		public void setUp(Instance instance) {
			for (int i = 0; i < 2; i++) {
				this.clients[i] = LockPeer.create(instance.peer);
				this.locks[i] = this.clients[i].lock("bench:shared-m");
			}
		}

		@TearDown(Level.Trial)
		public void tearDown(Instance instance, BenchmarkParams params) {
			putCounts(name(params), instance.peer, "violationsAcrossInstances");
			for (LockPeer client : this.clients) {
				client.close();
			}
		}

	}

	@Benchmark
	@Threads(1)
	public void w1OwnKey(OwnKey key) {
		key.lock.lock();
		key.lock.unlock();
	}

	@Benchmark
	@Threads(16)
	public void w2OwnKeys16Threads(OwnKey key) {
		key.lock.lock();
		key.lock.unlock();
	}

	@Benchmark
	@Threads(8)
	public void w3OneKey8Threads(Instance instance, SharedKey key) {
		key.lock.lock();
		try {
			instance.critical();
		}
		finally {
			key.lock.unlock();
		}
	}

	@Benchmark
	@Threads(8)
	public void w3xOneKey8Instances(OwnClient client) {
		client.lock.lock();
		try {
			if (OwnClient.inside.incrementAndGet() != 1) {
				OwnClient.violations.incrementAndGet();
			}
			OwnClient.inside.decrementAndGet();
			if (client.measuring) {
				client.mine.incrementAndGet();
			}
		}
		finally {
			client.lock.unlock();
		}
	}

	@Benchmark
	@Threads(8)
	public void w3mOneKey2Instances4ThreadsEach(TwoInstances instances, InstanceOfThread thread) {
		Lock lock = instances.locks[thread.index];
		lock.lock();
		try {
			if (instances.inside.incrementAndGet() != 1) {
				instances.violations.incrementAndGet();
			}
			instances.inside.decrementAndGet();
			if (instances.measuring) {
				instances.acquisitions[thread.index].incrementAndGet();
			}
		}
		finally {
			lock.unlock();
		}
	}

	@Benchmark
	@Threads(1)
	public void w4Reentrant(OwnKey key) {
		key.lock.lock();
		key.lock.lock();
		key.lock.unlock();
		key.lock.unlock();
	}

	static String name(BenchmarkParams params) {
		String benchmark = params.getBenchmark();
		return benchmark.substring(benchmark.lastIndexOf('.') + 1);
	}

}
