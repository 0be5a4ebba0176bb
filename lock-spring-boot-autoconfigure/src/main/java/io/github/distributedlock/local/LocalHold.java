package io.github.distributedlock.local;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockLossSignal;
import org.jspecify.annotations.Nullable;

/**
 * One owner's hold on a key of a {@link LocalLockStore} (a lock, or one permit of a semaphore): its hold count
 * (re-entries included), its lease, its fencing token, and whether it was lost. Changed under the mutex of its
 * {@link LocalKey}; the fields that
 * {@link LocalLockHandle#isLost()} reads without the mutex are volatile.
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

	/** Holds of the owner, re-entries included. Changed under the lock's mutex; volatile for {@link #snapshot()}. */
	volatile int count = 1;

	/** When it was acquired, by the wall clock. */
	final Instant heldSince = Instant.now();

	/** {@link System#nanoTime()} when it was acquired. */
	final long acquiredAt;

	/** Where its acquisition, release and loss are told. */
	private final LocalHoldEvents events;

	/** Whether its loss was told (or is being told); guarded by this hold's monitor. */
	private boolean lossReported;

	/** Whether the hold is still part of its lock's state (held, or kept for its minimum hold). */
	boolean inState = true;

	/** Whether the hold ends at {@link #deadline}: a hard lease, or a release kept for its minimum hold. */
	volatile boolean expires;

	/** {@link System#nanoTime()} when the hold ends, if it {@link #expires}. */
	volatile long deadline;

	/** {@link System#nanoTime()} until which the lock stays taken after the last release; valid if {@link #keep}. */
	long holdUntil;

	/** Whether a minimum hold was asked for. */
	boolean keep;

	volatile boolean released;

	/** Cancels the check at the end of its hard lease ({@link LeaseEnds}), or {@code null}; guarded by the mutex. */
	@Nullable ScheduledFuture<?> leaseEnd;

	volatile @Nullable String lostReason;

	/** Tells the handles' {@code whenLost()} of the loss. */
	final LockLossSignal lossSignal = new LockLossSignal();

	LocalHold(Acquisition acquisition, long token, LocalKey lock, long now) {
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

	/** Whether the lock is known to be lost, without the mutex: marked lost, or a hard lease that ran out. */
	boolean isLost() {
		return this.lostReason != null || (!this.released && endedAt(System.nanoTime()));
	}

	/** A re-entry: one more hold, and a hard lease lasts at least one more lease from now. */
	void reenter(long now, long leaseNanos, long holdAtLeastNanos) {
		this.count++;
		if (this.expires && now + leaseNanos - this.deadline > 0) {
			this.deadline = now + leaseNanos;
		}
		holdAtLeast(now, holdAtLeastNanos);
	}

	/** Keeps the lock taken until at least {@code holdAtLeastNanos} after {@code now}; never earlier than asked before. */
	private void holdAtLeast(long now, long holdAtLeastNanos) {
		if (holdAtLeastNanos > 0 && (!this.keep || now + holdAtLeastNanos - this.holdUntil > 0)) {
			this.holdUntil = now + holdAtLeastNanos;
			this.keep = true;
		}
	}

	/**
	 * The last release: {@code true} if the hold stays in the lock, owned by nobody, until its minimum hold
	 * ends; {@code false} if it leaves now.
	 */
	boolean keptAfterRelease(long now) {
		this.released = true;
		if (this.keep && this.holdUntil - now > 0) {
			this.expires = true;
			this.deadline = this.holdUntil;
			return true;
		}
		return false;
	}

	/**
	 * Marks the hold lost, and tells the loss (its {@code whenLost()}, the log, the observer) on a pool thread:
	 * this runs under the lock's mutex, which the loss's listeners must not run under.
	 */
	void markLost(String reason) {
		if (this.lostReason == null) {
			this.lostReason = reason;
			ForkJoinPool.commonPool().execute(() -> this.events.lost(this));
		}
	}

	/**
	 * Tells the loss of this hold once: runs {@code report} with the reason the first time it is called after
	 * {@link #markLost}, never again. A caller that comes while another thread tells it waits until that is done,
	 * so that a release tells its hold's loss before the release, whichever thread tells the loss.
	 * @param report what tells the loss, given the reason
	 */
	synchronized void reportLossOnce(Consumer<String> report) {
		String reason = this.lostReason;
		if (reason != null && !this.lossReported) {
			this.lossReported = true;
			report.accept(reason);
		}
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
		return new HeldLock(this.key, this.type, this.owner, this.count, this.token, this.heldSince,
				Duration.ofMillis(this.leaseMillis), this.autoRenew, isLost(), this.permits);
	}

	String hardLeaseRanOut() {
		return "its lease of " + this.leaseMillis + " ms ran out (auto-renew was off)";
	}

}
