package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

/**
 * One waiting owner. Its state goes from {@code WAITING} to {@code CANCELLED} (it gave up, timed out or
 * bypassed), to {@code HEAD}, or to {@code RESERVED} and then {@code HANDED_OVER} or {@code HEAD}.
 */
final class LocalWaiter {

	static final int WAITING = 0;

	static final int RESERVED = 1;

	static final int HANDED_OVER = 2;

	static final int HEAD = 3;

	static final int CANCELLED = 4;

	/** The turn of an owner that found the queue empty. */
	static final LocalWaiter HEAD_NOW = new LocalWaiter(LocalTurn.HEAD, HEAD);

	/** The turn of a try without waiting that found the queue taken. */
	static final LocalWaiter TIMED_OUT_NOW = new LocalWaiter(LocalTurn.TIMED_OUT, CANCELLED);

	/** The turn of an owner that came after the head's hard lease ran out. */
	static final LocalWaiter BYPASS_NOW = new LocalWaiter(LocalTurn.BYPASS, CANCELLED);

	/** Owner id a hand-over records in Redis. */
	final String owner;

	/** Lease in milliseconds that a hand-over gives this waiter. */
	final long leaseMillis;

	private final CompletableFuture<LocalTurn> turn;

	volatile int state;

	/** Ends the wait at its deadline; cancelled when the turn comes sooner. */
	volatile @Nullable ScheduledFuture<?> timeout;

	LocalWaiter(String owner, long leaseMillis) {
		this.owner = owner;
		this.leaseMillis = leaseMillis;
		this.turn = new CompletableFuture<>();
		this.state = WAITING;
	}

	private LocalWaiter(LocalTurn turn, int state) {
		this.owner = "";
		this.leaseMillis = 0;
		this.turn = CompletableFuture.completedFuture(turn);
		this.state = state;
	}

	/**
	 * Returns the owner's turn, completed on the thread that gives it (a release, the timer).
	 * @return the turn
	 */
	CompletableFuture<LocalTurn> turn() {
		return this.turn;
	}

	void complete(LocalTurn given) {
		ScheduledFuture<?> pending = this.timeout;
		if (pending != null) {
			pending.cancel(false);
		}
		this.turn.complete(given);
	}

}
