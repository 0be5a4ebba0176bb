package io.github.distributedlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.LockLossSignal;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link RedisLockClient} knows of a lock one of its owners holds: the owner's holds (re-entries
 * included), the lease confirmed by the last acquire or renewal, the fencing token, and whether it is known
 * to be lost. The hold count changes under the hold's monitor, since a {@link RedisLockHandle} may release on
 * another thread than the one that re-enters; the lost state is set by the watchdog.
 * <p>
 * Thread-bound holds: a hold acquired through a {@code Lock} view (or re-entered only so) is released by its
 * owner thread; one whose thread ended without releasing it is {@linkplain #isOrphaned() orphaned}, and the
 * watchdog releases it. A hold with an open {@link RedisLockHandle} may be closed by any thread, also after its
 * acquiring thread ended (asynchronous code), so it is never orphaned.
 */
final class Hold {

	private static final AtomicLong SEQUENCE = new AtomicLong();

	final HoldId id;

	final String redisKey;

	final String owner;

	final long leaseMillis;

	final boolean autoRenew;

	/** The key's permit count: 1 for a lock, more for a semaphore (this owner holds one of its permits). */
	final int permits;

	/** The fencing token of the acquisition that made the owner the holder; re-entries share it. */
	final long token;

	/** {@link System#nanoTime()} when this hold was made, for how long it was held. */
	final long acquiredAt = System.nanoTime();

	/** Whether its loss was told to the observer (see {@link HoldEvents}). Changed under this object's monitor. */
	private boolean lossReported;

	/** {@link System#nanoTime()} when the watchdog renews this hold next (auto-renew holds only). */
	volatile long nextRenewal;

	/**
	 * Whether its last renewal failed, so that {@link #nextRenewal} is a retry: the watchdog takes it only when
	 * due, never early with a batch (which ran retries back to back, a few milliseconds apart).
	 */
	volatile boolean retrying;

	/** Holds of the owner: re-entries included. Changed under this object's monitor. */
	int count = 1;

	/**
	 * The thread whose owner id the hold has, or {@code null} for an owner that is not a thread (an
	 * asynchronous call or a reactive chain, which always releases through a handle). A hold of a thread that
	 * no open {@link RedisLockHandle} refers to is bound to it: once the thread ended, nobody can release it
	 * any more.
	 */
	final @Nullable Thread thread;

	/** Tells holds due for renewal at the same time apart, in the watchdog's schedule. */
	final long seq = SEQUENCE.incrementAndGet();

	/**
	 * {@link System#nanoTime()} the watchdog's schedule has this hold under; written only while the hold is not
	 * in the schedule.
	 */
	long scheduledAt;

	/** Open {@link RedisLockHandle}s of this hold (re-entries included). Changed under this object's monitor. */
	volatile int handles;

	/** Whether the watchdog is renewing it right now; set under this object's monitor. */
	volatile boolean renewing;

	/**
	 * {@link System#nanoTime()} until which the lock stays taken after the last release (the minimum hold,
	 * counted from the acquisition), or {@code Long.MIN_VALUE} for none.
	 */
	volatile long holdUntil = Long.MIN_VALUE;

	/** The local queue this hold was acquired through, or {@code null} (read locks). */
	volatile @Nullable LocalQueue queue;

	/** Whether the owner holds the head of {@link #queue} (it did not bypass it). */
	volatile boolean queueHead;

	volatile boolean released;

	volatile @Nullable String lostReason;

	/** {@link System#nanoTime()} until which the last acquire or renewal guarantees the lock. */
	volatile long confirmedUntil;

	/** Tells the handles' {@code whenLost()} of the loss, once it is told (see {@link HoldEvents#lost}). */
	final LockLossSignal lossSignal = new LockLossSignal();

	Hold(HoldId id, String redisKey, String owner, @Nullable Thread thread, long leaseMillis, boolean autoRenew,
			long sentAt, long token) {
		this(id, redisKey, owner, thread, leaseMillis, autoRenew, sentAt, token, 1);
	}

	Hold(HoldId id, String redisKey, String owner, @Nullable Thread thread, long leaseMillis, boolean autoRenew,
			long sentAt, long token, int permits) {
		this.permits = permits;
		this.id = id;
		this.redisKey = redisKey;
		this.owner = owner;
		this.leaseMillis = leaseMillis;
		this.autoRenew = autoRenew;
		this.token = token;
		this.thread = thread;
		this.confirmedUntil = sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
		this.nextRenewal = sentAt + renewalPeriodNanos();
	}

	/** A third of the lease: renewed then, two thirds of the lease are left for a slow round trip. */
	long renewalPeriodNanos() {
		return Math.max(TimeUnit.MILLISECONDS.toNanos(1), thirdOfLeaseNanos(this.leaseMillis));
	}

	/** A third of a lease of {@code leaseMillis}, in nanoseconds. */
	static long thirdOfLeaseNanos(long leaseMillis) {
		return TimeUnit.MILLISECONDS.toNanos(leaseMillis) / 3;
	}

	/**
	 * Keeps the lock taken until at least {@code holdAtLeastNanos} after {@code acquiredAt}; a re-entry with a
	 * later end moves it later, never earlier.
	 */
	void holdAtLeast(long acquiredAt, long holdAtLeastNanos) {
		if (holdAtLeastNanos > 0) {
			long until = acquiredAt + holdAtLeastNanos;
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
	long keepMillis() {
		long until = this.holdUntil;
		return (until == Long.MIN_VALUE) ? 0 : TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime() + 999_999);
	}

	/**
	 * Whether the hold is orphaned: its owner thread ended without releasing it, and no open handle (which any
	 * thread may close) refers to it. Such a hold would be renewed for ever.
	 */
	boolean isOrphaned() {
		Thread owner = this.thread;
		return owner != null && this.handles == 0 && !this.released && !owner.isAlive();
	}

	/**
	 * Names the owner, for the log: its thread, or the asynchronous owner.
	 * @return such as {@code thread 'main'} or {@code asynchronous owner 7}
	 */
	String holder() {
		return holder(this.thread, this.id.owner());
	}

	/**
	 * Names an owner for the log: its thread, or its number as an asynchronous owner.
	 * @param thread the owner thread, or {@code null} for an owner that is not a thread
	 * @param owner the owner ({@link HoldId#owner()})
	 */
	static String holder(@Nullable Thread thread, long owner) {
		return (thread != null) ? "thread '" + thread.getName() + "'" : "asynchronous owner " + -owner;
	}

	/** Starts a renewal unless one is running. */
	synchronized boolean startRenewal() {
		if (this.renewing || this.released || this.lostReason != null) {
			return false;
		}
		this.renewing = true;
		return true;
	}

	/** Whether the lock is known to be lost, without a round trip: marked lost, or a hard lease that ran out. */
	boolean isKnownLost() {
		if (this.lostReason == null && !this.autoRenew && !this.released
				&& System.nanoTime() - this.confirmedUntil >= 0) {
			markLost(hardLeaseRanOut());
		}
		return this.lostReason != null;
	}

	String hardLeaseRanOut() {
		return "its lease of " + this.leaseMillis + " ms ran out (auto-renew was off)";
	}

	/**
	 * Why the lock was not held any more when its release reached Redis, as far as this client knows: a hard
	 * lease that had run out by then, or else only that the lock was gone (the client cannot tell whether it
	 * expired, was deleted or was force-released).
	 */
	String goneAtRelease() {
		if (!this.autoRenew && System.nanoTime() - this.confirmedUntil >= 0) {
			return hardLeaseRanOut();
		}
		return "it was gone when its holder released it (it expired, was deleted or was force-released in Redis)";
	}

	void markLost(String reason) {
		if (this.lostReason == null) {
			this.lostReason = reason;
		}
	}

	/**
	 * Returns what is known of this hold now, for diagnostics.
	 * @param now the wall clock now
	 * @param nanoNow {@link System#nanoTime()} now, to date the acquisition with {@code now}
	 */
	HeldLock snapshot(Instant now, long nanoNow) {
		int holds;
		synchronized (this) {
			holds = this.count;
		}
		return new HeldLock(this.id.key(), this.id.type(), this.owner, holds, this.token,
				now.minusNanos(nanoNow - this.acquiredAt), Duration.ofMillis(this.leaseMillis), this.autoRenew,
				isKnownLost(), this.permits);
	}

	/**
	 * Tells whether the loss of this hold was told already.
	 * @return {@code true} once {@link #reportLoss()} was called
	 */
	synchronized boolean isLossReported() {
		return this.lossReported;
	}

	/**
	 * Records that the loss of this hold is being told.
	 * @return {@code true} the first time only
	 */
	synchronized boolean reportLoss() {
		boolean first = !this.lossReported;
		this.lossReported = true;
		return first;
	}

	/**
	 * Identity of one owner's hold on one lock: the lock key, its type and the owner: a thread's id, or a
	 * negative number for an owner that is not a thread.
	 */
	record HoldId(String key, LockType type, long owner) {
	}

}
