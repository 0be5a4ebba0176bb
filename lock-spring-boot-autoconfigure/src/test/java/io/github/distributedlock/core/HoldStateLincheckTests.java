package io.github.distributedlock.core;

import java.util.concurrent.atomic.AtomicInteger;

import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Model checks of {@link HoldState}, the bookkeeping of a hold every store shares: Lincheck runs its transitions
 * (re-enter, release one, release all, mark lost, claim or tell the loss, confirm) from three threads in every
 * interleaving it can reach, and checks each run against the transitions run one at a time (linearizability),
 * then that the hold ended at most once (exactly once if it reads as released), its loss was told at most once and
 * only after a loss was recorded, and its count never went negative.
 * <p>
 * Mutations these tests catch (each made by hand in {@link HoldState}, seen to fail, then reverted):
 * {@code releaseOne} without {@code synchronized} (model checking: a re-entry lost under a LAST release, count 1
 * on a released hold); {@code releaseOne} not checking {@code released} (both modes: the hold ended twice);
 * {@code claimLossReport} without {@code synchronized} (both modes: the loss told twice). A mutation that changes
 * what one transition does alone (not how transitions interleave) is for the plain unit tests: the specification
 * here is the class itself, run one transition at a time.
 */
@Param(name = "reason", gen = IntGen.class, conf = "1:2")
@Param(name = "until", gen = IntGen.class, conf = "1:3")
public class HoldStateLincheckTests {

	private final HoldState state = new HoldState(0);

	/** The transitions that ended the hold: LAST releases and successful release-alls. */
	private final AtomicInteger ends = new AtomicInteger();

	/** The times the loss was told: claims won and reports run. */
	private final AtomicInteger lossReports = new AtomicInteger();

	@Operation
	public boolean reenter() {
		return this.state.reenter();
	}

	@Operation
	public HoldState.Release releaseOne() {
		HoldState.Release step = this.state.releaseOne();
		if (step == HoldState.Release.LAST) {
			this.ends.incrementAndGet();
		}
		return step;
	}

	@Operation
	public boolean releaseAll() {
		boolean ended = this.state.releaseAll();
		if (ended) {
			this.ends.incrementAndGet();
		}
		return ended;
	}

	@Operation
	public boolean markLost(@Param(name = "reason") int reason) {
		return this.state.markLost("reason " + reason);
	}

	@Operation
	public boolean markLostIfHeld(@Param(name = "reason") int reason) {
		return this.state.markLostIfHeld("reason " + reason);
	}

	@Operation
	public boolean claimLossReport() {
		boolean claimed = this.state.claimLossReport();
		if (claimed) {
			this.lossReports.incrementAndGet();
		}
		return claimed;
	}

	@Operation
	public String reportLossOnce() {
		StringBuilder told = new StringBuilder();
		this.state.reportLossOnce((reason) -> {
			this.lossReports.incrementAndGet();
			told.append(reason);
		});
		return told.toString();
	}

	@Operation
	public long confirmUntil(@Param(name = "until") int until) {
		this.state.confirmUntil(until);
		return this.state.confirmedUntil();
	}

	@Operation
	public int count() {
		return this.state.count();
	}

	@Operation
	public String lostReason() {
		return String.valueOf(this.state.lostReason());
	}

	@Validate
	public void endedOnceAndToldOnce() {
		int count = this.state.count();
		int ends = this.ends.get();
		int reports = this.lossReports.get();
		if (count < 0) {
			throw new IllegalStateException("hold count went negative: " + count);
		}
		if (ends > 1 || (this.state.isReleased() != (ends == 1)) || (this.state.isReleased() != (count == 0))) {
			throw new IllegalStateException(
					"ended " + ends + " times, released " + this.state.isReleased() + ", count " + count);
		}
		if (reports > 1 || (reports == 1 && this.state.lostReason() == null)
				|| (reports == 1) != this.state.isLossReported()) {
			throw new IllegalStateException("loss told " + reports + " times, reason " + this.state.lostReason());
		}
	}

	@Test
	void transitionsAreAtomicInEveryInterleaving() {
		new ModelCheckingOptions().iterations(30)
			.invocationsPerIteration(500)
			.threads(3)
			.actorsPerThread(3)
			.actorsBefore(1)
			.actorsAfter(1)
			.check(getClass());
	}

	@Test
	void transitionsAreAtomicUnderStress() {
		new StressOptions().iterations(5)
			.invocationsPerIteration(300)
			.threads(3)
			.actorsPerThread(3)
			.minimizeFailedScenario(false)
			.check(getClass());
	}

}
