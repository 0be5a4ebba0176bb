package io.github.distributedlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.test.ConnectionChurn;
import io.github.distributedlock.test.ExclusionChecker;
import io.github.distributedlock.test.RedisServer;

/**
 * The fault thread of the Redlock chaos run ({@link RedlockChaosRunner}): every 3–6 s one fault on one node, the
 * kinds in turn and the node moving on after each full turn, so that every kind hits every node:
 * <ul>
 * <li>{@code kill -9}, and a restart, empty (no persistence), after the delayed-restart time: longer than the
 * longest lease, as redis.io's "delayed restarts" asks;</li>
 * <li>{@code kill -STOP} for 0.5–2.5 s (far longer than the per-node timeout), then {@code kill -CONT};</li>
 * <li>{@link ConnectionChurn} for 5 s: the node's client connections killed ({@code CLIENT KILL}) every
 * 30–400 ms, and one event in 20 a freeze of 300–900 ms.</li>
 * </ul>
 * Records, per fault, the milliseconds from its start to the next body that entered on any key, and per kind
 * the longest stall of one key (no body entered on it) seen from a fault's start to 3 s after its end. Every
 * node is running and answering again when the thread ends. Thread-safe.
 */
final class RedlockFaults {

	private final RedlockNodes nodes;

	private final Duration delayedRestart;

	private final List<ExclusionChecker> checkers;

	/** {@link System#nanoTime()} at the end of the fault under way, 0 while it lasts. */
	private volatile long faultEnded;

	private final long[] longestStallMillis = new long[3];

	private final List<Long> recoveries = Collections.synchronizedList(new ArrayList<>());

	private final List<String> churns = Collections.synchronizedList(new ArrayList<>());

	private final int[] counts = new int[3];

	private final Thread thread;

	/**
	 * Starts the fault thread.
	 * @param nodes the nodes to fault
	 * @param delayedRestart how long a killed node stays down: longer than the longest lease
	 * @param deadline {@link System#nanoTime()} after which no fault starts (none within 5 s of it)
	 * @param checkers the checker of every key, whose bodies' entries show recoveries and stalls
	 */
	RedlockFaults(RedlockNodes nodes, Duration delayedRestart, long deadline, List<ExclusionChecker> checkers) {
		this.nodes = nodes;
		this.delayedRestart = delayedRestart;
		this.checkers = List.copyOf(checkers);
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
			int kind = fault % 3;
			RedisServer server = this.nodes.server((fault / 3) % this.nodes.size());
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
			inject(kind, server);
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
				+ this.counts[2] + " (" + this.longestStallMillis[2] + " ms) " + this.churns;
	}

}
