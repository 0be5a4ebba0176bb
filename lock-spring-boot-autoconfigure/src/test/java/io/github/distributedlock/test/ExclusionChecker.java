package io.github.distributedlock.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * The invariants of a mutual-exclusion lock (or of a semaphore, {@link #ExclusionChecker(int)}), checked on a
 * workload of many calls on one key: the locked body
 * counts the bodies inside (never more than one), does a read-modify-write of a plain counter with a short
 * park in between (an update is lost if two bodies overlap), and appends the fencing token it was given to a
 * list in body order (the tokens must strictly increase). Calls that throw are counted by exception class and
 * message head. A holder this JVM does not run (another process) takes part through {@link #enter(long)} and
 * {@link #leave()}. Used by the chaos test and by the benchmarks' chaos run. Thread-safe.
 */
public final class ExclusionChecker {

	private static final int MESSAGE_HEAD = 100;

	/** How many holders may be inside at once: 1 for a lock, the permits of a semaphore. */
	private final int permits;

	private final AtomicInteger inside = new AtomicInteger();

	private final AtomicInteger mostInside = new AtomicInteger();

	private final AtomicInteger overlaps = new AtomicInteger();

	private final LongAdder calls = new LongAdder();

	private final LongAdder bodies = new LongAdder();

	private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();

	/** Written only by a body; volatile so that only an overlap, not the memory model, can lose an update. */
	private volatile int counter;

	/** Appended to on entry, in entry order; synchronized only to survive an overlap intact. */
	private final List<Long> tokens = new ArrayList<>();

	/** {@link System#nanoTime()} at the start of the first call, 0 before. */
	private final AtomicLong started = new AtomicLong();

	/** {@link System#nanoTime()} at the end of the latest call. */
	private final AtomicLong ended = new AtomicLong();

	/** {@link System#nanoTime()} of the latest entry, 0 before. */
	private final AtomicLong lastEntered = new AtomicLong();

	private final AtomicLong longestGap = new AtomicLong();

	/** A checker of a lock: never two bodies inside. */
	public ExclusionChecker() {
		this(1);
	}

	/**
	 * A checker of a semaphore: never more than {@code permits} bodies inside, no fencing token handed out twice
	 * (its holders overlap, so neither entry order nor a plain counter can be checked); with 1, a lock's checker.
	 * @param permits how many bodies may be inside at once
	 */
	public ExclusionChecker(int permits) {
		this.permits = permits;
	}

	/**
	 * Makes one call that is to run {@link #body(long)} under the lock, counting it, and counting its failure
	 * when it throws.
	 * @param call the call, such as {@code () -> template.execute(definition, ...)}
	 */
	public void call(Runnable call) {
		this.started.compareAndSet(0, System.nanoTime());
		this.calls.increment();
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			// lock keys in quotes, and times waited, vary from call to call: left out so that failures group by kind
			String message = String.valueOf(ex.getMessage()).replaceAll("'[^']*'", "'...'")
				.replaceAll("within \\d+ ms", "within N ms");
			String head = (message.length() > MESSAGE_HEAD) ? message.substring(0, MESSAGE_HEAD) + "..." : message;
			this.failures.computeIfAbsent(ex.getClass().getSimpleName() + ": " + head, (k) -> new LongAdder())
				.increment();
		}
		finally {
			this.ended.accumulateAndGet(System.nanoTime(), Math::max);
		}
	}

	/**
	 * The locked body: {@linkplain #enter(long) enters}, increments the plain counter with a park of 0.1–2 ms
	 * between its read and its write, and {@linkplain #leave() leaves}.
	 * @param fencingToken the token of the hold the body runs under, or a negative number for a lock without
	 * tokens (not recorded)
	 */
	public void body(long fencingToken) {
		enter(fencingToken);
		try {
			if (this.permits > 1) {
				// holders overlap by design: the park is the workload, there is no update to lose
				LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(100_000, 2_000_001));
				this.bodies.increment();
				return;
			}
			int value = this.counter;
			// the workload, not synchronisation: widens the window in which a second holder loses an update
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(100_000, 2_000_001));
			this.counter = value + 1;
			this.bodies.increment();
		}
		finally {
			leave();
		}
	}

	/**
	 * Records that a holder entered: an overlap if another is inside, and its token.
	 * @param fencingToken the holder's token, or a negative number for none (not recorded)
	 */
	public void enter(long fencingToken) {
		int holders = this.inside.incrementAndGet();
		this.mostInside.accumulateAndGet(holders, Math::max);
		if (holders > this.permits) {
			this.overlaps.incrementAndGet();
		}
		long now = System.nanoTime();
		long previous = this.lastEntered.getAndSet(now);
		if (previous != 0) {
			this.longestGap.accumulateAndGet(now - previous, Math::max);
		}
		if (fencingToken >= 0) {
			synchronized (this.tokens) {
				this.tokens.add(fencingToken);
			}
		}
	}

	/**
	 * Records that the holder that {@linkplain #enter(long) entered} left.
	 */
	public void leave() {
		this.inside.decrementAndGet();
	}

	/**
	 * Returns when a holder last entered.
	 * @return its {@link System#nanoTime()}, or 0 if none entered yet
	 */
	public long lastEnteredNanos() {
		return this.lastEntered.get();
	}

	/**
	 * Returns the longest time between two entries.
	 * @return milliseconds
	 */
	public long longestGapMillis() {
		return this.longestGap.get() / 1_000_000;
	}

	/**
	 * Returns the number of times a holder entered while another was inside (a semaphore's checker: while all
	 * its permits' holders were).
	 * @return 0 for a lock that held
	 */
	public int overlaps() {
		return this.overlaps.get();
	}

	/**
	 * Returns the most holders that were inside at once.
	 * @return 1 for a lock that held and was used; up to the permits for a semaphore
	 */
	public int mostInside() {
		return this.mostInside.get();
	}

	/**
	 * Returns how many tokens, in entry order, were not greater than the one before; for a semaphore's checker,
	 * how many were handed out more than once (its holders enter in another order than Redis granted them).
	 * @return 0 for a lock whose tokens held
	 */
	public int tokenRegressions() {
		synchronized (this.tokens) {
			if (this.permits > 1) {
				return this.tokens.size() - (int) this.tokens.stream().distinct().count();
			}
			int regressions = 0;
			for (int i = 1; i < this.tokens.size(); i++) {
				if (this.tokens.get(i) <= this.tokens.get(i - 1)) {
					regressions++;
				}
			}
			return regressions;
		}
	}

	/**
	 * Returns the number of bodies whose increment of the counter was lost.
	 * @return 0 for a lock that held
	 */
	public long lostUpdates() {
		return (this.permits > 1) ? 0 : this.bodies.sum() - this.counter;
	}

	/**
	 * Returns the number of calls made.
	 * @return calls so far
	 */
	public long calls() {
		return this.calls.sum();
	}

	/**
	 * Returns the number of bodies that ran to their end.
	 * @return bodies so far
	 */
	public long bodies() {
		return this.bodies.sum();
	}

	/**
	 * Returns the number of calls that threw.
	 * @return failed calls so far
	 */
	public long failedCalls() {
		return this.failures.values().stream().mapToLong(LongAdder::sum).sum();
	}

	/**
	 * Returns the share of calls that did not throw.
	 * @return between 0 and 1; 1 when no call was made
	 */
	public double successRate() {
		long total = calls();
		return (total == 0) ? 1 : 1 - (double) failedCalls() / total;
	}

	/**
	 * Returns the time from the start of the first call to the end of the latest.
	 * @return seconds; 0 before a call ended
	 */
	public double seconds() {
		return (this.ended.get() == 0) ? 0 : (this.ended.get() - this.started.get()) / 1e9;
	}

	/**
	 * Returns the failures, the most frequent first.
	 * @param limit how many kinds at most
	 * @return such as {@code "[12 x DistributedLockException: Could not acquire lock '...' in Redis: ...]"}
	 */
	public String failures(int limit) {
		return this.failures.entrySet()
			.stream()
			.sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
			.limit(limit)
			.map((entry) -> entry.getValue().sum() + " x " + entry.getKey())
			.collect(Collectors.joining("; ", "[", "]"));
	}

	/**
	 * Describes the run in one line: calls, bodies, failures (the five most frequent, by exception class and
	 * message head), overlaps, lost updates, token regressions, the longest gap between entries, and the
	 * seconds from the start of the first call to the end of the latest.
	 * @return the summary
	 */
	public String summary() {
		return String.format("calls=%d bodies=%d failed=%d (%.2f %% succeeded) mostInside=%d overlaps=%d "
				+ "lostUpdates=%d tokenRegressions=%d longestGap=%dms duration=%.1fs failures=%s", calls(), bodies(),
				failedCalls(), 100 * successRate(), mostInside(), overlaps(), lostUpdates(), tokenRegressions(),
				longestGapMillis(), seconds(), failures(5));
	}

	/**
	 * Lists the broken invariants: two holders inside at once, lost updates, tokens not increasing in entry
	 * order, and fewer than {@code minSuccessRate} of the calls succeeded.
	 * @param minSuccessRate such as {@code 0.995}
	 * @return one line per broken invariant; empty when all held
	 */
	public List<String> problems(double minSuccessRate) {
		List<String> problems = new ArrayList<>();
		if (overlaps() != 0) {
			problems.add(overlaps() + " times " + (this.permits + 1) + " holders inside at once");
		}
		if (lostUpdates() != 0) {
			problems.add(lostUpdates() + " lost updates");
		}
		if (tokenRegressions() != 0) {
			problems.add(tokenRegressions() + ((this.permits > 1) ? " fencing tokens handed out twice"
					: " fencing tokens not greater than the one before"));
		}
		if (successRate() < minSuccessRate) {
			problems.add(String.format("%.2f %% of the calls succeeded, fewer than %.2f %%", 100 * successRate(),
					100 * minSuccessRate));
		}
		return problems;
	}

}
