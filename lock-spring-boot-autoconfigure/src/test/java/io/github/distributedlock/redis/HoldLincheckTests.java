package io.github.distributedlock.redis;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.HoldState;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LincheckScenarios;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

import static io.github.distributedlock.core.LincheckScenarios.call;

/**
 * Model checks of the Redis store's {@link Hold} transitions that need no Redis: re-entries of the owner thread,
 * releases by a handle or by the owner thread, the watchdog's release of an orphaned hold (its owner
 * thread ended, here one that never ran, and no handle is open), loss marks and the claim of the loss report, and
 * the start and end of a renewal. The hold was acquired through a handle and re-entered through two more, one for
 * each thread, which may close it once (re-entries through further handles are left out: only a live owner opens
 * them, and its hold is never orphaned). Lincheck
 * runs them from three threads in every interleaving it reaches and checks each run against the same operations
 * one at a time (linearizability), then that the hold ended exactly once if it reads as released (never twice: a
 * LAST release, or the orphan's release), its loss was claimed at most once and only once recorded, and its
 * count never went negative.
 * <p>
 * Mutations these tests catch (each made by hand in {@link Hold}, seen to fail, then reverted): {@code release}
 * without {@code synchronized} (model checking, hand-written scenario: the watchdog releases the orphan between
 * the handle count's decrement and the release, and the close finds its hold released under it; the random
 * scenarios alone did not reach it). On main these tests found a real race, fixed in {@link Hold#reenter}: see
 * {@link #reentryRacesAReleaseThatFindsTheLockGone()}.
 */
@Param(name = "thread", gen = ThreadIdGen.class)
public class HoldLincheckTests {

	private static final int THREADS = 3;

	/** The owner thread: never started, so it reads as ended, and the hold is orphaned once no handle is open. */
	private static final Thread ENDED_OWNER = new Thread(() -> {
	}, "ended-owner");

	private final Hold hold;

	/** Whether each thread closed its handle; written only by that thread. */
	private final boolean[] handleClosed = new boolean[THREADS];

	/** The transitions that ended the hold: LAST releases and the orphan's release. */
	private final AtomicInteger ends = new AtomicInteger();

	private final AtomicInteger lossClaims = new AtomicInteger();

	public HoldLincheckTests() {
		Hold.HoldId id = new Hold.HoldId("k", LockType.REENTRANT, 1);
		Attempt attempt = new Attempt(id, "lock:k", new ReentrantKind(null), "client:1/1", 30_000, true, "");
		this.hold = new Hold(attempt, new Grant(System.nanoTime(), 1, 1), ENDED_OWNER, null, false);
		// acquired through a handle and re-entered through two more, one handle for each thread
		this.hold.openHandle();
		for (int reentry = 1; reentry < THREADS; reentry++) {
			this.hold.reenter(30_000);
			this.hold.openHandle();
		}
	}

	/** A re-entry released by the owner thread (no handle). */
	@Operation
	public String reenter() {
		try {
			return (this.hold.reenter(30_000) == Hold.Reentry.RELEASED) ? "released" : "reentered";
		}
		catch (LockLostException ex) {
			return "lost";
		}
	}

	/** Closes this thread's handle, once. */
	@Operation
	public String closeHandle(@Param(name = "thread") int thread) {
		if (this.handleClosed[thread]) {
			return "closed already";
		}
		this.handleClosed[thread] = true;
		return release(true);
	}

	/** A release by the owner thread, without a handle. */
	@Operation
	public String releaseByThread() {
		return release(false);
	}

	private String release(boolean byHandle) {
		HoldState.Release step = this.hold.release(byHandle);
		if (step == HoldState.Release.LAST) {
			this.ends.incrementAndGet();
		}
		return step.name();
	}

	/** The watchdog finds the owner thread ended. */
	@Operation
	public boolean releaseIfOrphaned() {
		boolean released = this.hold.releaseIfOrphaned();
		if (released) {
			this.ends.incrementAndGet();
		}
		return released;
	}

	@Operation
	public void markLost() {
		this.hold.markLost("renewal found the lock gone");
	}

	@Operation
	public boolean markLostIfHeld() {
		return this.hold.markLostIfHeld("lease ran out");
	}

	@Operation
	public boolean claimLossReport() {
		boolean claimed = this.hold.claimLossReport();
		if (claimed) {
			this.lossClaims.incrementAndGet();
		}
		return claimed;
	}

	@Operation
	public boolean startRenewal() {
		return this.hold.startRenewal();
	}

	@Operation
	public boolean endRenewal() {
		return this.hold.endRenewal();
	}

	@Validate
	public void endedOnceAndLossClaimedOnce() {
		int count = this.hold.snapshot(Instant.now(), System.nanoTime()).holdCount();
		int ends = this.ends.get();
		if (count < 0 || ends > 1 || this.hold.isReleased() != (ends == 1) || this.hold.isReleased() != (count == 0)) {
			throw new IllegalStateException(
					"ended " + ends + " times, released " + this.hold.isReleased() + ", count " + count);
		}
		int claims = this.lossClaims.get();
		if (claims > 1 || (claims == 1 && this.hold.lostReason() == null)) {
			throw new IllegalStateException("loss claimed " + claims + " times, reason " + this.hold.lostReason());
		}
	}

	@Test
	void transitionsAreAtomicInEveryInterleaving() {
		new ModelCheckingOptions().iterations(20)
			.invocationsPerIteration(200)
			.threads(3)
			.actorsPerThread(3)
			.actorsBefore(0)
			.actorsAfter(0)
			.addCustomScenario(reentryRacesAReleaseThatFindsTheLockGone())
			.addCustomScenario(lastHandleClosedWhileTheWatchdogLooksForOrphans())
			.check(getClass());
	}

	/**
	 * The owner re-enters while another thread closes the hold's handle, whose release finds the lock gone in
	 * Redis and marks the released hold lost. The re-entry must see the release (the owner acquires anew), not a
	 * loss of a hold it no longer has: {@link Hold#reenter} read "not released" and then "lost" from two
	 * moments and threw {@link LockLostException}, which Lincheck found; it now reads the release again.
	 */
	private static ExecutionScenario reentryRacesAReleaseThatFindsTheLockGone() {
		return LincheckScenarios.of(HoldLincheckTests.class)
			.initial(call("closeHandle", 1), call("closeHandle", 2))
			.thread(call("reenter"))
			.thread(call("closeHandle", 0), call("markLost"))
			.build();
	}

	/**
	 * The owner thread re-entered (a hold without a handle) and ended; the last handle is closed while the watchdog
	 * looks for orphans: the close is an inner release, and the watchdog releases the orphan after it, or finds
	 * the handle still open; never a close that finds the hold released under it.
	 */
	private static ExecutionScenario lastHandleClosedWhileTheWatchdogLooksForOrphans() {
		return LincheckScenarios.of(HoldLincheckTests.class)
			.initial(call("closeHandle", 1), call("closeHandle", 2), call("reenter"))
			.thread(call("closeHandle", 0))
			.thread(call("releaseIfOrphaned"))
			.build();
	}

	@Test
	void transitionsAreAtomicUnderStress() {
		new StressOptions().iterations(5)
			.invocationsPerIteration(200)
			.threads(3)
			.actorsPerThread(3)
			.actorsBefore(0)
			.actorsAfter(0)
			.minimizeFailedScenario(false)
			.check(getClass());
	}

}
