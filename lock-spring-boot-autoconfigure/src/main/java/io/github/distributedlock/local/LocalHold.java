package io.github.distributedlock.local;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.HoldState;
import io.github.distributedlock.core.LockLossSignal;
import org.jspecify.annotations.Nullable;

/**
 * One owner's hold on a key of a {@link LocalLockStore} (a lock, or one permit of a semaphore): its lease, its
 * fencing token, its hard lease or minimum hold, and (in {@link HoldState}, the bookkeeping every store shares) its
 * hold count, release and loss. Every change is a method of this class, called under the mutex of its
 * {@link LocalKey}; what {@link LocalLockHandle#isLost()} reads without the mutex is volatile.
 */
final class LocalHold {

	/** The lock key as the caller named it, without the key prefix. */
	final String key;

	final LockType type;

	/** The owner: {@code <client id>:<thread id>}, or {@code <client id>:async-<n>}. */
	final String owner;

	/** The owner's number: the id of the thread that acquired it, or a negative number for another owner. */
	final long ownerId;

	final long leaseMillis;

	/** The key's permit count: 1 for a lock, more for a semaphore (of which this hold takes one). */
	final int permits;

	final boolean autoRenew;

	/** The fencing token of the acquisition that made the owner the holder; re-entries share it. */
	final long token;

	/** The key's state this hold is part of. */
	final LocalKey lock;

	/** Hold count, release, loss and the loss signal. */
	private final HoldState state = new HoldState(0);

	/** When it was acquired, by the wall clock. */
	final Instant heldSince = Instant.now();

	/** {@link System#nanoTime()} when it was acquired. */
	final long acquiredAt;

	/** Where its acquisition, release and loss are told. */
	private final LocalHoldEvents events;

	/** Whether the hold is still part of its lock's state (held, or kept for its minimum hold). */
	private boolean inState = true;

	/** Whether the hold ends at {@link #deadline}: a hard lease, or a release kept for its minimum hold. */
	private volatile boolean expires;

	/** {@link System#nanoTime()} when the hold ends, if it {@link #expires}. */
	private volatile long deadline;

	/** {@link System#nanoTime()} until which the lock stays taken after the last release; valid if {@link #keep}. */
	private long holdUntil;

	/** Whether a minimum hold was asked for. */
	private boolean keep;

	/** Cancels the check at the end of its hard lease ({@link LeaseEnds}), or {@code null}; guarded by the mutex. */
	private @Nullable ScheduledFuture<?> leaseEnd;

	LocalHold(KeyRequest acquisition, long token, LocalKey lock, long now) {
		this.key = acquisition.key();
		this.type = acquisition.type();
		this.owner = acquisition.owner();
		this.ownerId = acquisition.ownerId();
		this.leaseMillis = acquisition.leaseMillis();
		this.permits = acquisition.permits();
		this.autoRenew = acquisition.autoRenew();
		this.token = token;
		this.lock = lock;
		this.acquiredAt = now;
		this.events = acquisition.events();
		// in one JVM nothing needs renewing: an auto-renewed hold simply never expires while held
		this.expires = !this.autoRenew;
		this.deadline = now + acquisition.leaseNanos();
		holdAtLeast(now, acquisition.holdAtLeastNanos());
	}

	/** Whether the hold has ended at {@code now}: its hard lease ran out, or its minimum hold passed. */
	boolean endedAt(long now) {
		return this.expires && now - this.deadline >= 0;
	}

	/** Whether the hold ends at {@link #deadline()}: a hard lease, or a release kept for its minimum hold. */
	boolean expires() {
		return this.expires;
	}

	/** {@link System#nanoTime()} when the hold ends, if it {@link #expires()}. */
	long deadline() {
		return this.deadline;
	}

	/** Whether the hold is still part of its lock's state (held, or kept for its minimum hold). */
	boolean inState() {
		return this.inState;
	}

	/** The hold leaves its lock's state: stops watching its lease's end. */
	void leaveState() {
		this.inState = false;
		ScheduledFuture<?> end = this.leaseEnd;
		if (end != null) {
			end.cancel(false);
		}
	}

	/** Watches the end of its hard lease: {@code end} runs then, unless the hold leaves the state first. */
	void watchLeaseEnd(ScheduledFuture<?> end) {
		this.leaseEnd = end;
	}

	/** Whether its last hold was released. */
	boolean isReleased() {
		return this.state.isReleased();
	}

	/** Why it was lost, or {@code null} while not known lost. */
	@Nullable String lostReason() {
		return this.state.lostReason();
	}

	LockLossSignal lossSignal() {
		return this.state.lossSignal();
	}

	/** Whether the lock is known to be lost, without the mutex: marked lost, or a hard lease that ran out. */
	boolean isLost() {
		return lostReason() != null || (!isReleased() && endedAt(System.nanoTime()));
	}

	/**
	 * A re-entry: one more hold, and a hard lease lasts at least one more lease from now.
	 * @return {@code false} if the hold was released meanwhile: the owner acquires anew
	 */
	boolean reenter(long now, long leaseNanos, long holdAtLeastNanos) {
		if (!this.state.reenter()) {
			return false;
		}
		if (this.expires && now + leaseNanos - this.deadline > 0) {
			this.deadline = now + leaseNanos;
		}
		holdAtLeast(now, holdAtLeastNanos);
		return true;
	}

	/** Keeps the lock taken until at least {@code holdAtLeastNanos} after {@code now}; never earlier than asked before. */
	private void holdAtLeast(long now, long holdAtLeastNanos) {
		if (holdAtLeastNanos > 0 && (!this.keep || now + holdAtLeastNanos - this.holdUntil > 0)) {
			this.holdUntil = now + holdAtLeastNanos;
			this.keep = true;
		}
	}

	/**
	 * Releases one hold; the last one keeps the lock taken, owned by nobody, until its minimum hold ends, if one
	 * is left.
	 * @param now the {@link System#nanoTime()} now
	 * @return {@link Release#INNER} if holds are left, {@link Release#KEPT} if the last one was released and the
	 * hold stays in the lock until its minimum hold ends, {@link Release#LAST} if it was released and leaves now,
	 * {@link Release#ALREADY_RELEASED} if it was released before
	 */
	Release releaseOne(long now) {
		switch (this.state.releaseOne()) {
			case ALREADY_RELEASED:
				return Release.ALREADY_RELEASED;
			case INNER:
				return Release.INNER;
			default:
				break;
		}
		if (this.keep && this.holdUntil - now > 0) {
			this.expires = true;
			this.deadline = this.holdUntil;
			return Release.KEPT;
		}
		return Release.LAST;
	}

	/**
	 * Marks the hold lost, and tells the loss (its {@code whenLost()}, the log, the observer) on a pool thread:
	 * this runs under the lock's mutex, which the loss's listeners must not run under.
	 */
	void markLost(String reason) {
		if (this.state.markLost(reason)) {
			ForkJoinPool.commonPool().execute(() -> this.events.lost(this));
		}
	}

	/**
	 * Tells the loss of this hold once (see {@link HoldState#reportLossOnce}): a caller that comes while another
	 * thread tells it waits until that is done, so that a release tells its hold's loss before the release.
	 * @param report what tells the loss, given the reason
	 */
	void reportLossOnce(Consumer<String> report) {
		this.state.reportLossOnce(report);
	}

	/**
	 * {@link System#nanoTime()} until which the hold is sure to last: its deadline if it {@link #expires}, else
	 * a lease from {@code now} (in one JVM an auto-renewed hold lasts until released, as if renewed at every
	 * moment).
	 */
	long confirmedUntil(long now) {
		return this.expires ? this.deadline : now + this.leaseMillis * 1_000_000L;
	}

	/** What {@link LocalLockClient#heldLocks()} tells of this hold; read without the mutex. */
	HeldLock snapshot() {
		return new HeldLock(this.key, this.type, this.owner, this.state.count(), this.token, this.heldSince,
				Duration.ofMillis(this.leaseMillis), this.autoRenew, isLost(), this.permits);
	}

	String hardLeaseRanOut() {
		return "its lease of " + this.leaseMillis + " ms ran out (auto-renew was off)";
	}

	/**
	 * What {@link #releaseOne} did.
	 */
	enum Release {

		/** Holds are left. */
		INNER,

		/** The last was released; the hold stays in the lock until its minimum hold ends. */
		KEPT,

		/** The last was released; the hold leaves the lock now. */
		LAST,

		/** It was released before: a release too many. */
		ALREADY_RELEASED

	}

}
