package io.github.distributedlock.redlock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ScheduledFuture;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockLossSignal;
import org.jspecify.annotations.Nullable;

/**
 * One owner's hold of one lock on a quorum of nodes: its attempt id, fencing token, validity (on this client's
 * monotonic clock), the owner's re-entries (counted here: a re-entry needs no new vote), and its loss. Shared by
 * the handles of the owner's re-entries. Thread-safe: the mutable state is guarded by this object's monitor, the
 * validity and loss are volatile.
 */
final class RedlockHold {

	final HoldKey id;

	final RedlockKeys keys;

	final String attempt;

	final long token;

	final long leaseMillis;

	final boolean autoRenew;

	/**
	 * Per node, whether its vote answered: where it did not, the release leaves a withdrawal marker. Shared with the
	 * votes, whose late answers still fill it in (see {@link Votes#of(NodeReplies, boolean[])}).
	 */
	final boolean[] answered;

	final long acquiredAt = System.nanoTime();

	final LockLossSignal lossSignal = new LockLossSignal();

	/** Until when a quorum holds the lock for this attempt, as a {@link System#nanoTime()} value. */
	private volatile long validUntil;

	private volatile @Nullable String lostReason;

	/** Holds of the owner not yet released: 1 for the acquisition, one more per re-entry. Guarded by this. */
	private int count = 1;

	/** Set once the last hold was released or the loss was handled. Guarded by this. */
	private boolean ended;

	/** Handles the owning thread releases with {@code release(key, type)}, last acquired last. Guarded by this. */
	private final Deque<RedlockHandle> byThread = new ArrayDeque<>();

	private volatile @Nullable ScheduledFuture<?> renewal;

	RedlockHold(HoldKey id, RedlockKeys keys, String attempt, long token, long leaseMillis, boolean autoRenew,
			boolean[] answered, long validUntil) {
		this.id = id;
		this.keys = keys;
		this.attempt = attempt;
		this.token = token;
		this.leaseMillis = leaseMillis;
		this.autoRenew = autoRenew;
		this.answered = answered;
		this.validUntil = validUntil;
	}

	long validUntil() {
		return this.validUntil;
	}

	/**
	 * Moves the validity later after a renewal confirmed on a quorum; never earlier.
	 * @param until the renewal's validity end, a {@link System#nanoTime()} value
	 */
	synchronized void confirmedUntil(long until) {
		if (until - this.validUntil > 0) {
			this.validUntil = until;
		}
	}

	@Nullable String lostReason() {
		return this.lostReason;
	}

	/**
	 * Marks the hold lost, the first time only, unless it ended.
	 * @param reason why, as the {@link io.github.distributedlock.core.LockLostException} says it
	 * @return {@code true} if this call marked it: the caller tells the loss
	 */
	synchronized boolean markLost(String reason) {
		if (this.ended || this.lostReason != null) {
			return false;
		}
		this.lostReason = reason;
		return true;
	}

	/**
	 * Marks the hold lost when its own release found it lost (it ended already).
	 * @param reason why
	 */
	synchronized void markLostAtRelease(String reason) {
		if (this.lostReason == null) {
			this.lostReason = reason;
		}
	}

	/**
	 * Adds a re-entry, unless the hold ended.
	 * @return {@code true} if re-entered
	 */
	synchronized boolean reenter() {
		if (this.ended) {
			return false;
		}
		this.count++;
		return true;
	}

	/**
	 * Releases one hold.
	 * @return {@code true} if it was the last one: the caller releases on the nodes
	 */
	synchronized boolean releaseOne() {
		if (this.ended) {
			return false;
		}
		this.count--;
		if (this.count == 0) {
			this.ended = true;
			return true;
		}
		return false;
	}

	/**
	 * Describes the hold for the Actuator endpoint.
	 * @param now the {@link System#nanoTime()} of the question
	 * @param wallNow the wall-clock time of the question
	 * @return the description
	 */
	synchronized HeldLock describe(long now, Instant wallNow) {
		return new HeldLock(this.id.key(), LockType.REENTRANT, this.attempt, this.count, this.token,
				wallNow.minusNanos(now - this.acquiredAt), Duration.ofMillis(this.leaseMillis), this.autoRenew,
				this.lostReason != null);
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
