package io.github.distributedlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import io.github.distributedlock.test.ConnectionChurn;
import io.github.distributedlock.test.ExclusionChecker;
import io.github.distributedlock.test.RedisServer;

/**
 * The fault thread of the Redlock chaos run ({@link RedlockChaosRunner}): every 3–6 s one fault on one node, the
 * kinds given in turn and the node moving on after each full turn, so that every kind hits every node:
 * <ul>
 * <li>{@code kill}: {@code kill -9}, and a restart, empty (no persistence), after the delayed-restart time:
 * longer than the longest lease, as redis.io's "delayed restarts" asks (or, as a negative control, a shorter
 * time that breaks that rule);</li>
 * <li>{@code stop}: {@code kill -STOP} for 0.5–2.5 s (far longer than the per-node timeout), then
 * {@code kill -CONT};</li>
 * <li>{@code churn}: {@link ConnectionChurn} for 5 s: the node's client connections killed ({@code CLIENT KILL})
 * every 30–400 ms, and one event in 20 a freeze of 300–900 ms;</li>
 * <li>{@code kill-majority} (not one node: a majority from that node on), once the holder JVM holds (up to
 * 10 s): {@code kill -9} of each and a restart after the delayed-restart time. Past a lease, no overlap is possible; restarted at once, it is the negative
 * control Redlock cannot pass (a second holder wins the emptied majority while the first still holds).</li>
 * </ul>
 * Records, per fault, the milliseconds from its start to the next body that entered on any key, and per kind
 * the longest stall of one key (no body entered on it) seen from a fault's start to 3 s after its end. Every
 * node is running and answering again when the thread ends. Thread-safe.
 */
final class RedlockFaults {

	/** The kinds of fault, by name. */
	static final List<String> KINDS = List.of("kill", "stop", "churn", "kill-majority");

	private final RedlockNodes nodes;

	private final List<Integer> kinds;

	private final Duration delayedRestart;

	private final List<ExclusionChecker> checkers;

	private final BooleanSupplier holderHolds;

	/** {@link System#nanoTime()} at the end of the fault under way, 0 while it lasts. */
	private volatile long faultEnded;

	private final long[] longestStallMillis = new long[4];

	private final List<Long> recoveries = Collections.synchronizedList(new ArrayList<>());

	private final List<String> churns = Collections.synchronizedList(new ArrayList<>());

	private final int[] counts = new int[4];

	private final Thread thread;

	/**
	 * Starts the fault thread.
	 * @param nodes the nodes to fault
	 * @param kinds the kinds of fault to inject in turn, of {@link #KINDS}
	 * @param delayedRestart how long a killed node stays down: longer than the longest lease
	 * @param deadline {@link System#nanoTime()} after which no fault starts (none within 5 s of it)
	 * @param checkers the checker of every key, whose bodies' entries show recoveries and stalls
	 * @param holderHolds whether the holder JVM holds its lock now
	 */
	RedlockFaults(RedlockNodes nodes, List<String> kinds, Duration delayedRestart, long deadline,
			List<ExclusionChecker> checkers, BooleanSupplier holderHolds) {
		this.nodes = nodes;
		this.kinds = kinds.stream().map((kind) -> {
			if (!KINDS.contains(kind)) {
				throw new IllegalArgumentException("Unknown Redlock chaos fault '" + kind + "': expected one of " + KINDS);
			}
			return KINDS.indexOf(kind);
		}).toList();
		this.delayedRestart = delayedRestart;
		this.checkers = List.copyOf(checkers);
		this.holderHolds = holderHolds;
		this.thread = new Thread(() -> run(deadline), "redlock-chaos-faults");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	private void run(long deadline) {
		for (int fault = 0;; fault++) {
			long next = System.nanoTime() + ThreadLocalRandom.current().nextLong(3000, 6001) * 1_000_000L;
			// the interval between faults: pacing, not synchronisation
			LockSupport.parkNanos(next - System.nanoTime());
			if (next - deadline > -5_000_000_000L) {
				return;
			}
			int kind = this.kinds.get(fault % this.kinds.size());
			int node = (fault / this.kinds.size()) % this.nodes.size();
			if (kind == 3) {
				awaitHolderHolds();
			}
			this.faultEnded = 0;
			long start = System.nanoTime();
			Thread watch = new Thread(() -> {
				this.recoveries.add(awaitEntryAfter(start));
				long stall = watchStalls();
				synchronized (this) {
					this.longestStallMillis[kind] = Math.max(this.longestStallMillis[kind], stall);
				}
			}, "redlock-chaos-recovery");
			watch.setDaemon(true);
			watch.start();
			if (kind == 3) {
				killMajority(node);
			}
			else {
				inject(kind, this.nodes.server(node));
			}
			this.faultEnded = System.nanoTime();
			synchronized (this) {
				this.counts[kind]++;
			}
			try {
				watch.join(60_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private void inject(int kind, RedisServer server) {
		switch (kind) {
			case 0 -> {
				server.kill();
				try {
					// the delayed restart: the time the node is down is the fault, not synchronisation
					LockSupport.parkNanos(this.delayedRestart.toNanos());
				}
				finally {
					server.restart();
				}
			}
			case 1 -> {
				server.freeze();
				try {
					// the pause's length: the workload of this fault
					LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(500, 2501) * 1_000_000L);
				}
				finally {
					server.resume();
				}
			}
			default -> {
				try (ConnectionChurn churn = ConnectionChurn.start(server)) {
					// the churn's length: the workload of this fault
					LockSupport.parkNanos(5_000_000_000L);
					this.churns.add(churn.toString());
				}
			}
		}
	}

	/** Polls every millisecond, for up to 10 s, until the holder JVM holds its lock. */
	private void awaitHolderHolds() {
		long giveUp = System.nanoTime() + 10_000_000_000L;
		while (!this.holderHolds.getAsBoolean() && System.nanoTime() - giveUp < 0) {
			LockSupport.parkNanos(1_000_000);
		}
	}

	/** Kills a majority of the nodes, from {@code first} on, and restarts them after the delayed-restart time. */
	private void killMajority(int first) {
		List<RedisServer> killed = new ArrayList<>();
		for (int i = 0; i < this.nodes.size() / 2 + 1; i++) {
			RedisServer server = this.nodes.server((first + i) % this.nodes.size());
			server.kill();
			killed.add(server);
		}
		try {
			// the time the nodes are down is the fault, not synchronisation
			LockSupport.parkNanos(this.delayedRestart.toNanos());
		}
		finally {
			killed.forEach(RedisServer::restart);
		}
	}

	/** Polls every millisecond until a body entered after {@code fault}; returns the milliseconds to it. */
	private long awaitEntryAfter(long fault) {
		long giveUp = fault + 60_000_000_000L;
		while (lastEntered() - fault <= 0 && System.nanoTime() - giveUp < 0) {
			LockSupport.parkNanos(1_000_000);
		}
		return (lastEntered() - fault) / 1_000_000;
	}

	/** {@link System#nanoTime()} of the latest entry on any key. */
	private long lastEntered() {
		return this.checkers.stream().mapToLong(ExclusionChecker::lastEnteredNanos).max().orElse(0);
	}

	/**
	 * Polls every 5 ms, until 3 s after the fault under way ended, how long ago each key's latest body entered;
	 * returns the longest, in milliseconds.
	 */
	private long watchStalls() {
		long longest = 0;
		while (this.faultEnded == 0 || System.nanoTime() - this.faultEnded < 3_000_000_000L) {
			long now = System.nanoTime();
			for (ExclusionChecker checker : this.checkers) {
				long entered = checker.lastEnteredNanos();
				if (entered != 0) {
					longest = Math.max(longest, (now - entered) / 1_000_000);
				}
			}
			LockSupport.parkNanos(5_000_000);
		}
		return longest;
	}

	/**
	 * Waits for the fault thread to end (it ends at the deadline, after the fault under way).
	 * @throws InterruptedException if interrupted while waiting
	 */
	void join() throws InterruptedException {
		this.thread.join(120_000);
	}

	/**
	 * Returns the recovery of each fault.
	 * @return milliseconds from each fault's start to the next body that entered
	 */
	List<Long> recoveries() {
		return List.copyOf(this.recoveries);
	}

	/**
	 * Describes what was injected.
	 * @return the count of each kind and its longest stall of a key, and what each churn did
	 */
	synchronized String injected() {
		return "kill -9 + restart after " + this.delayedRestart.toMillis() + " ms: " + this.counts[0]
				+ " (longest stall of a key " + this.longestStallMillis[0] + " ms), kill -STOP 0.5-2.5 s: "
				+ this.counts[1] + " (" + this.longestStallMillis[1] + " ms), CLIENT KILL 30-400 ms apart for 5 s: "
				+ this.counts[2] + " (" + this.longestStallMillis[2] + " ms) " + this.churns + ", kill -9 of a majority + restart after "
				+ this.delayedRestart.toMillis() + " ms: " + this.counts[3] + " (" + this.longestStallMillis[3] + " ms)";
	}

}
