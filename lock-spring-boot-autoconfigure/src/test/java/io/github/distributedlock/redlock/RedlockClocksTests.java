package io.github.distributedlock.redlock;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client's estimate of its nodes' clocks, on times given in the calls: the proposal is the greatest clock
 * observed, carried forward from its round's send, plus the margin; a slower round does not lower it within a
 * window; without a recent observation there is none.
 */
class RedlockClocksTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long START = TimeUnit.SECONDS.toNanos(1_000);

	private static final long CLOCK = 1_800_000_000_000_000L;

	@Test
	void noProposalBeforeAnyClockWasSeen() {
		assertThat(new RedlockClocks().proposal(START)).isZero();
	}

	@Test
	void theProposalIsTheClockCarriedForwardFromTheSendPlusTheMargin() {
		RedlockClocks clocks = new RedlockClocks();
		// sent at START, decided 2 ms later: the node read its clock in between
		clocks.observe(CLOCK, START, START + 2 * MS);
		assertThat(clocks.proposal(START + 10 * MS)).isEqualTo(CLOCK + 10_000 + RedlockClocks.MARGIN_MICROS);
	}

	@Test
	void aRoundWhoseVoteWentOutFasterDoesNotLowerTheProposalWithinAWindow() {
		RedlockClocks clocks = new RedlockClocks();
		clocks.observe(CLOCK + 500, START, START + MS);
		// 100 ms later, this round's vote reached its node sooner: its clock reads lower for its send time
		clocks.observe(CLOCK + 100_100, START + 100 * MS, START + 101 * MS);
		assertThat(clocks.proposal(START + 200 * MS)).isEqualTo(CLOCK + 200_500 + RedlockClocks.MARGIN_MICROS);
		// the greatest clock answered is kept when it is ahead
		clocks.observe(CLOCK + 300_900, START + 300 * MS, START + 301 * MS);
		assertThat(clocks.proposal(START + 400 * MS)).isEqualTo(CLOCK + 400_900 + RedlockClocks.MARGIN_MICROS);
	}

	@Test
	void aNewWindowStartsFromItsFirstObservation() {
		RedlockClocks clocks = new RedlockClocks();
		clocks.observe(CLOCK + 5_000, START, START + MS);
		long later = START + TimeUnit.MILLISECONDS.toNanos(RedlockClocks.FRESH_MILLIS) + 100 * MS;
		long elapsedMicros = (later - START) / 1_000;
		clocks.observe(CLOCK + elapsedMicros, later, later + MS);
		assertThat(clocks.proposal(later)).isEqualTo(CLOCK + elapsedMicros + RedlockClocks.MARGIN_MICROS);
	}

	@Test
	void anObservationOlderThanTheWindowIsNotUsed() {
		RedlockClocks clocks = new RedlockClocks();
		clocks.observe(CLOCK, START, START + MS);
		long fresh = TimeUnit.MILLISECONDS.toNanos(RedlockClocks.FRESH_MILLIS);
		assertThat(clocks.proposal(START + MS + fresh)).isPositive();
		assertThat(clocks.proposal(START + 2 * MS + fresh)).isZero();
	}

	@Test
	void aRoundWithoutAClockChangesNothing() {
		RedlockClocks clocks = new RedlockClocks();
		clocks.observe(0, START, START + MS);
		assertThat(clocks.proposal(START + MS)).isZero();
	}

}
