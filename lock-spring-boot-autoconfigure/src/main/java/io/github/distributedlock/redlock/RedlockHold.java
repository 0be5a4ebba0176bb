package io.github.distributedlock.redlock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ScheduledFuture;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.HoldState;
import io.github.distributedlock.core.LockLossSignal;
import org.jspecify.annotations.Nullable;

/**
 * One owner's hold of one lock on a quorum of nodes: its attempt id, fencing token, and (in {@link HoldState}, the
 * bookkeeping every store shares) its validity on this client's monotonic clock as the confirmed lease, the owner's
 * re-entries (counted here: a re-entry needs no new vote), whether it was released, and its loss. Shared by the
 * handles of the owner's re-entries. Thread-safe: the state is {@link HoldState}'s; the minimum hold and the
 * thread's handles are guarded by this object's monitor.
 */
final class RedlockHold {

	final HoldKey id;

	final RedlockKeys keys;

	final String attempt;

	final long token;

	final long leaseMillis;

	final boolean autoRenew;

	/**
	 * Per node, whether its vote answered in time: where it did not, the release leaves a withdrawal marker (see
	 * {@link Votes#of(NodeReplies, boolean[])}).
	 */
	final boolean[] answered;

	final long acquiredAt = System.nanoTime();

	/** The count, release, loss and validity ({@link HoldState#confirmedUntil()}) of the hold. */
	private final HoldState state;

	/** Handles the owning thread releases with {@code release(key, type)}, last acquired last. Guarded by this. */
	private final Deque<RedlockHandle> byThread = new ArrayDeque<>();

	private volatile @Nullable ScheduledFuture<?> renewal;

	/**
	 * Until when the lock stays taken at least (the minimum hold), as a {@link System#nanoTime()} value;
	 * {@link Long#MIN_VALUE} for none. Guarded by this.
	 */
	private long holdUntil = Long.MIN_VALUE;

	RedlockHold(HoldKey id, RedlockKeys keys, String attempt, long token, long leaseMillis, boolean autoRenew,
			boolean[] answered, long validUntil) {
		this.id = id;
		this.keys = keys;
		this.attempt = attempt;
		this.token = token;
		this.leaseMillis = leaseMillis;
		this.autoRenew = autoRenew;
		this.answered = answered;
		this.state = new HoldState(validUntil);
	}

	/**
	 * Returns until when a quorum holds the lock for this attempt.
	 * @return a {@link System#nanoTime()} value
	 */
	long validUntil() {
		return this.state.confirmedUntil();
	}

	/**
	 * Moves the validity later after a renewal confirmed on a quorum; never earlier.
	 * @param until the renewal's validity end, a {@link System#nanoTime()} value
	 */
	void confirmedUntil(long until) {
		this.state.confirmUntil(until);
	}

	@Nullable String lostReason() {
		return this.state.lostReason();
	}

	/**
	 * Returns the signal of the hold's loss, which its handles' {@code whenLost()} read.
	 * @return the signal, one per hold
	 */
	LockLossSignal lossSignal() {
		return this.state.lossSignal();
	}

	/**
	 * Marks the hold lost, the first time only, unless its last hold was released.
	 * @param reason why, as the {@link io.github.distributedlock.core.LockLostException} says it
	 * @return {@code true} if this call marked it: the caller tells the loss
	 */
	boolean markLost(String reason) {
		return this.state.markLostIfHeld(reason);
	}

	/**
	 * Marks the hold lost when its own release found it lost (it was released already).
	 * @param reason why
	 */
	void markLostAtRelease(String reason) {
		this.state.markLost(reason);
	}

	/**
	 * Adds a re-entry, unless the last hold was released.
	 * @return {@code true} if re-entered
	 */
	boolean reenter() {
		return this.state.reenter();
	}

	/**
	 * Releases one hold.
	 * @return {@code true} if it was the last one: the caller releases on the nodes
	 */
	boolean releaseOne() {
		return this.state.releaseOne() == HoldState.Release.LAST;
	}

	/**
	 * Describes the hold for the Actuator endpoint.
	 * @param now the {@link System#nanoTime()} of the question
	 * @param wallNow the wall-clock time of the question
	 * @return the description
	 */
	synchronized HeldLock describe(long now, Instant wallNow) {
		return new HeldLock(this.id.key(), LockType.REENTRANT, this.attempt, this.state.count(), this.token,
				wallNow.minusNanos(now - this.acquiredAt), Duration.ofMillis(this.leaseMillis), this.autoRenew,
				this.state.lostReason() != null);
	}

	/**
	 * Keeps the lock taken until at least {@code holdAtLeastNanos} after {@code from}; an acquisition or re-entry
	 * with a later end moves it later, never earlier.
	 * @param from when the acquisition or re-entry completed, a {@link System#nanoTime()} value
	 * @param holdAtLeastNanos its minimum hold, 0 for none
	 */
	synchronized void holdAtLeast(long from, long holdAtLeastNanos) {
		if (holdAtLeastNanos > 0) {
			long until = from + holdAtLeastNanos;
			if (this.holdUntil == Long.MIN_VALUE || until - this.holdUntil > 0) {
				this.holdUntil = until;
			}
		}
	}

	/**
	 * Returns what is left of the minimum hold (rounded up to a whole millisecond), for a release that keeps the
	 * lock taken by nobody until then.
	 * @return milliseconds, or 0 or less when no minimum hold is left
	 */
	synchronized long keepMillis() {
		long until = this.holdUntil;
		return (until == Long.MIN_VALUE) ? 0
				: java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime() + 999_999);
	}

	synchronized void addByThread(RedlockHandle handle) {
		this.byThread.addLast(handle);
	}

	synchronized @Nullable RedlockHandle lastByThread() {
		return this.byThread.pollLast();
	}

	synchronized void removeByThread(RedlockHandle handle) {
		this.byThread.remove(handle);
	}

	void renewal(@Nullable ScheduledFuture<?> renewal) {
		this.renewal = renewal;
	}

	void stopRenewal() {
		ScheduledFuture<?> current = this.renewal;
		if (current != null) {
			current.cancel(false);
		}
	}

	/**
	 * The key of a hold in the client's table: one owner (a thread id, or a negative asynchronous owner) and one
	 * lock key.
	 *
	 * @param owner the owner
	 * @param key the lock key
	 */
	record HoldKey(long owner, String key) {
	}

}
