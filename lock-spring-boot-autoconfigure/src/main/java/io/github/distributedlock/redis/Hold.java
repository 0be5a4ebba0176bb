package io.github.distributedlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.HeldLock;
import io.github.distributedlock.core.HoldState;
import io.github.distributedlock.core.LockLossSignal;
import io.github.distributedlock.core.LockLostException;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link RedisLockClient} knows of a lock one of its owners holds: the owner's holds (re-entries
 * included), the lease confirmed by the last acquire or renewal, the fencing token, whether it is known to be
 * lost ({@link HoldState}, the bookkeeping every store shares), and what this store adds: its open handles, its
 * place in the local queue, its minimum hold, and its turn in the watchdog's schedule. Every change is a method of
 * this class, atomic under its monitor where it reads and writes more than one field; nobody else writes its state.
 * <p>
 * Thread-bound holds: a hold acquired through a {@code Lock} view (or re-entered only so) is released by its
 * owner thread; one whose thread ended without releasing it is {@linkplain #isOrphaned() orphaned}, and the
 * watchdog releases it. A hold with an open {@link RedisLockHandle} may be closed by any thread, also after its
 * acquiring thread ended (asynchronous code), so it is never orphaned.
 * <p>
 * Thread-safe: a {@link RedisLockHandle} may release on another thread than the one that re-enters, the watchdog
 * renews on its own threads.
 */
final class Hold {

	private static final AtomicLong SEQUENCE = new AtomicLong();

	private final HoldId id;

	private final String redisKey;

	/** The owner id in Redis of the acquisition attempt that made the owner the holder. */
	private final String owner;

	private final long leaseMillis;

	private final boolean autoRenew;

	/** The kind of lock: a semaphore's owner holds one of its permits. */
	private final LockKind kind;

	/** The fencing token of the acquisition that made the owner the holder; re-entries share it. */
	private final long token;

	/**
	 * The connection generation that granted the lock (see {@link ServerLife#generationOf}), or
	 * {@link ConnectionBreaks#BROKEN}: a release that finds nothing held after a reconnect passes for one that ran
	 * twice only while Redis is on that generation's server life.
	 */
	private final long generation;

	/** {@link System#nanoTime()} when this hold was made, for how long it was held. */
	private final long acquiredAt = System.nanoTime();

	/**
	 * The thread whose owner id the hold has, or {@code null} for an owner that is not a thread (an
	 * asynchronous call or a reactive chain, which always releases through a handle). A hold of a thread that
	 * no open {@link RedisLockHandle} refers to is bound to it: once the thread ended, nobody can release it
	 * any more.
	 */
	private final @Nullable Thread thread;

	/** Tells holds due for renewal at the same time apart, in the watchdog's schedule. */
	private final long seq = SEQUENCE.incrementAndGet();

	/** The local queue this hold was acquired through, or {@code null} (read locks, semaphores). */
	private final @Nullable LocalQueue queue;

	/** Whether the owner holds the head of {@link #queue} (it did not bypass it). */
	private final boolean queueHead;

	/** Hold count, release, loss, confirmed lease and the loss signal. */
	private final HoldState state;

	/** {@link System#nanoTime()} when the watchdog renews this hold next (auto-renew holds only). */
	private volatile long nextRenewal;

	/**
	 * Whether its last renewal failed, so that {@link #nextRenewal} is a retry: the watchdog takes it only when
	 * due, never early with a batch (which ran retries back to back, a few milliseconds apart).
	 */
	private volatile boolean retrying;

	/**
	 * {@link System#nanoTime()} the watchdog's schedule has this hold under; changed only while the hold is not in
	 * the schedule ({@link #scheduleNext()}).
	 */
	private volatile long scheduledAt;

	/** Open {@link RedisLockHandle}s of this hold (re-entries included). Guarded by this. */
	private int handles;

	/** Whether the watchdog is renewing it right now. Written under this object's monitor. */
	private volatile boolean renewing;

	/**
	 * {@link System#nanoTime()} until which the lock stays taken after the last release (the minimum hold,
	 * counted from the acquisition), or {@code Long.MIN_VALUE} for none.
	 */
	private volatile long holdUntil = Long.MIN_VALUE;

	/**
	 * Makes the hold of an acquisition Redis confirmed.
	 * @param attempt what was acquired, by which attempt
	 * @param grant how Redis confirmed it
	 * @param thread the owner thread, or {@code null} for an owner that is not a thread
	 * @param queue the local queue it was acquired through, or {@code null}
	 * @param queueHead whether the owner holds the head of {@code queue}
	 */
	Hold(Attempt attempt, Grant grant, @Nullable Thread thread, @Nullable LocalQueue queue, boolean queueHead) {
		this.id = attempt.id();
		this.redisKey = attempt.redisKey();
		this.owner = attempt.owner();
		this.leaseMillis = attempt.leaseMillis();
		this.autoRenew = attempt.autoRenew();
		this.kind = attempt.kind();
		this.token = grant.token();
		this.generation = grant.generation();
		this.thread = thread;
		this.queue = queue;
		this.queueHead = queueHead;
		this.state = new HoldState(grant.sentAt() + TimeUnit.MILLISECONDS.toNanos(this.leaseMillis));
		this.nextRenewal = grant.sentAt() + renewalPeriodNanos();
	}

	HoldId id() {
		return this.id;
	}

	/** The lock key as the caller named it. */
	String key() {
		return this.id.key();
	}

	LockType type() {
		return this.id.type();
	}

	String redisKey() {
		return this.redisKey;
	}

	/** The owner id in Redis of the acquisition attempt, {@code <client id>:<thread id>/<attempt>}. */
	String owner() {
		return this.owner;
	}

	long leaseMillis() {
		return this.leaseMillis;
	}

	boolean autoRenew() {
		return this.autoRenew;
	}

	LockKind kind() {
		return this.kind;
	}

	/** The key's permit count: 1 for a lock, more for a semaphore (this owner holds one of its permits). */
	int permits() {
		return this.kind.permits();
	}

	long token() {
		return this.token;
	}

	long generation() {
		return this.generation;
	}

	/** {@link System#nanoTime()} when the hold was made. */
	long acquiredAt() {
		return this.acquiredAt;
	}

	@Nullable LocalQueue queue() {
		return this.queue;
	}

	boolean isQueueHead() {
		return this.queueHead;
	}

	/** Orders holds due at the same time in the watchdog's schedule. */
	long seq() {
		return this.seq;
	}

	/** {@link System#nanoTime()} the watchdog's schedule has this hold under. */
	long scheduledAt() {
		return this.scheduledAt;
	}

	/** Whether the next renewal is a retry after a failed one. */
	boolean isRetrying() {
		return this.retrying;
	}

	/** {@link System#nanoTime()} until which the last acquire or renewal guarantees the lock. */
	long confirmedUntil() {
		return this.state.confirmedUntil();
	}

	/** Why the lock was lost, as far as this client knows; {@code null} while not known lost. */
	@Nullable String lostReason() {
		return this.state.lostReason();
	}

	/** Whether its last hold was released. */
	boolean isReleased() {
		return this.state.isReleased();
	}

	LockLossSignal lossSignal() {
		return this.state.lossSignal();
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
	 * A re-entry of the owner: counted at once, so that a release by another handle meanwhile does not release the
	 * lock.
	 * @param leaseMillis the re-entry's lease
	 * @return {@link Reentry#RELEASED} if the last hold was released meanwhile (by a handle closed on another
	 * thread: the owner acquires anew), {@link Reentry#LOCAL} when the last acquire or renewal still guarantees the
	 * lock for a third of the lease or more and the lease is not longer (no round trip), else
	 * {@link Reentry#REMOTE}: the lease is extended in Redis ({@link #confirm}), and a failure undoes the re-entry
	 * ({@link #dropReentry()})
	 * @throws LockLostException if the lock is known to be lost
	 */
	Reentry reenter(long leaseMillis) {
		if (isReleased()) {
			return Reentry.RELEASED;
		}
		String lost = lostReason();
		if (lost != null) {
			if (isReleased()) {
				// released (by a handle closed on another thread) since the first look, and marked lost by that
				// release: the loss is the release's to tell, and the owner acquires anew
				return Reentry.RELEASED;
			}
			throw new LockLostException(key(), lost + "; it cannot be re-entered");
		}
		if (!this.state.reenter()) {
			return Reentry.RELEASED;
		}
		return (leaseMillis <= this.leaseMillis && confirmedUntil() - System.nanoTime() > renewalPeriodNanos())
				? Reentry.LOCAL : Reentry.REMOTE;
	}

	/**
	 * Records a confirmation of the lock: a re-entry's round trip; never moves the confirmed lease earlier.
	 * @param sentAt when the confirming command was sent, a {@link System#nanoTime()} value
	 * @param leaseMillis the lease it asked for
	 */
	void confirm(long sentAt, long leaseMillis) {
		this.state.confirmUntil(sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
	}

	/**
	 * Undoes a re-entry counted before its round trip, which failed.
	 * @return {@code true} if the owner's other holds were released meanwhile: this was the last, and the caller
	 * releases the lock in Redis
	 */
	boolean dropReentry() {
		return this.state.releaseOne() == HoldState.Release.LAST;
	}

	/** Opens a handle: while one is open, the hold is released only through a handle (never as an orphan). */
	synchronized void openHandle() {
		this.handles++;
	}

	/**
	 * Releases one hold.
	 * @param byHandle whether one of its handles is closed by this release
	 * @return whether it was the last one, an inner one, or one too many
	 */
	synchronized HoldState.Release release(boolean byHandle) {
		if (byHandle) {
			this.handles--;
		}
		return this.state.releaseOne();
	}

	/**
	 * Releases every hold of an orphaned hold ({@link #isOrphaned()}), whose owner can release it no more.
	 * @return {@code true} if it was orphaned and is released now; the caller releases the lock in Redis
	 */
	synchronized boolean releaseIfOrphaned() {
		return isOrphaned() && this.state.releaseAll();
	}

	/**
	 * Keeps the lock taken until at least {@code holdAtLeastNanos} after {@code acquiredAt}; a re-entry with a
	 * later end moves it later, never earlier.
	 */
	synchronized void holdAtLeast(long acquiredAt, long holdAtLeastNanos) {
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
	synchronized boolean isOrphaned() {
		Thread owner = this.thread;
		return owner != null && this.handles == 0 && !isReleased() && !owner.isAlive();
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

	/**
	 * Enters the watchdog's schedule: at {@link #nextRenewal} for an auto-renew hold, at the end of its confirmed
	 * lease for a hard one. Called only while the hold is not in the schedule (its position depends on it).
	 * @return the {@link System#nanoTime()} it is scheduled at
	 */
	long scheduleNext() {
		long at = this.autoRenew ? this.nextRenewal : confirmedUntil();
		this.scheduledAt = at;
		return at;
	}

	/** Starts a renewal unless one is running, or the hold was released or lost. */
	synchronized boolean startRenewal() {
		if (this.renewing || isReleased() || lostReason() != null) {
			return false;
		}
		this.renewing = true;
		return true;
	}

	/**
	 * Ends a renewal.
	 * @return {@code true} if the hold is still held and not lost: the watchdog schedules its next renewal
	 */
	synchronized boolean endRenewal() {
		this.renewing = false;
		return !isReleased() && lostReason() == null;
	}

	/** Whether a renewal of this held hold is on its way (and no outcome recorded yet). */
	boolean isRenewalPending() {
		return this.renewing && !isReleased() && lostReason() == null;
	}

	/**
	 * Records a renewal Redis confirmed: the lease is confirmed from its sending, and the next renewal comes a
	 * third of the lease later.
	 * @param sentAt when it was sent, a {@link System#nanoTime()} value
	 */
	void renewed(long sentAt) {
		this.retrying = false;
		this.state.confirmUntil(sentAt + TimeUnit.MILLISECONDS.toNanos(this.leaseMillis));
		this.nextRenewal = sentAt + renewalPeriodNanos();
	}

	/**
	 * Records a renewal whose round trip failed: retried after a third of what is left of the lease, but no sooner
	 * than {@code minGapNanos}, unless the confirmed lease ended.
	 * @param now the {@link System#nanoTime()} now
	 * @param minGapNanos the shortest time before the retry
	 * @return {@code true} if the confirmed lease ended: the caller marks the hold lost
	 */
	boolean renewalFailed(long now, long minGapNanos) {
		long confirmed = confirmedUntil();
		if (now - confirmed >= 0) {
			return true;
		}
		this.retrying = true;
		this.nextRenewal = now + Math.max(minGapNanos, (confirmed - now) / 3);
		return false;
	}

	/**
	 * The end of a hard lease ({@code autoRenew = false}), as the watchdog scheduled it.
	 * @return {@link HardLeaseEnd#RELEASED} if released meanwhile, {@link HardLeaseEnd#EXTENDED} if a late
	 * re-entry extended the lease (the watchdog schedules it again), else {@link HardLeaseEnd#LOST}: marked lost
	 */
	synchronized HardLeaseEnd endHardLease() {
		if (isReleased()) {
			return HardLeaseEnd.RELEASED;
		}
		if (System.nanoTime() - confirmedUntil() < 0) {
			return HardLeaseEnd.EXTENDED;
		}
		this.state.markLost(hardLeaseRanOut());
		return HardLeaseEnd.LOST;
	}

	/** Whether the lock is known to be lost, without a round trip: marked lost, or a hard lease that ran out. */
	boolean isKnownLost() {
		if (lostReason() == null && !this.autoRenew && !isReleased() && System.nanoTime() - confirmedUntil() >= 0) {
			this.state.markLost(hardLeaseRanOut());
		}
		return lostReason() != null;
	}

	/**
	 * Why an auto-renewed hold is taken for lost when its release failed after its confirmed lease had ended.
	 */
	String leaseUnconfirmedAtRelease() {
		return "its lease was confirmed only until before its release was sent (renewals had not reached Redis in "
				+ "time, or the process was paused), and the release failed: the lock may have ended before it";
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
		if (!this.autoRenew && System.nanoTime() - confirmedUntil() >= 0) {
			return hardLeaseRanOut();
		}
		return "it was gone when its holder released it (it expired, was deleted or was force-released in Redis)";
	}

	/**
	 * Records that the lock was lost, unless a loss was recorded before (the first reason stays).
	 * @param reason why, as the {@link LockLostException} says it
	 */
	void markLost(String reason) {
		this.state.markLost(reason);
	}

	/**
	 * Records that the lock was lost while it is held (not once released, nor if a loss was recorded before).
	 * @param reason why
	 * @return {@code true} if this call recorded it: the caller tells the loss
	 */
	boolean markLostIfHeld(String reason) {
		return this.state.markLostIfHeld(reason);
	}

	/**
	 * Claims the telling of the loss (see {@link HoldEvents#lost}).
	 * @return {@code true} the first time a recorded loss is claimed
	 */
	boolean claimLossReport() {
		return this.state.claimLossReport();
	}

	/**
	 * Tells whether the loss of this hold was told already.
	 * @return {@code true} once it was claimed
	 */
	boolean isLossReported() {
		return this.state.isLossReported();
	}

	/**
	 * A hold known lost blocks no waiter of its own client: other instances may take the lock meanwhile, and
	 * waiting for its release (often that of a holder that hung, which is why it was lost) would stall only this
	 * client's work. Not once it is released: its queue has a new head then.
	 */
	synchronized void releaseLocalWaiters() {
		if (this.queue != null && !isReleased() && this.queueHead) {
			this.queue.headLost();
		}
	}

	/**
	 * Returns what is known of this hold now, for diagnostics.
	 * @param now the wall clock now
	 * @param nanoNow {@link System#nanoTime()} now, to date the acquisition with {@code now}
	 */
	HeldLock snapshot(Instant now, long nanoNow) {
		return new HeldLock(this.id.key(), this.id.type(), this.owner, this.state.count(), this.token,
				now.minusNanos(nanoNow - this.acquiredAt), Duration.ofMillis(this.leaseMillis), this.autoRenew,
				isKnownLost(), this.kind.permits());
	}

	/**
	 * What {@link #reenter} found.
	 */
	enum Reentry {

		/** Re-entered, the lease confirmed for long enough: no round trip. */
		LOCAL,

		/** Re-entered (counted); the lease is to be extended in Redis. */
		REMOTE,

		/** Not re-entered: the last hold was released meanwhile. */
		RELEASED

	}

	/**
	 * What {@link #endHardLease()} found.
	 */
	enum HardLeaseEnd {

		/** Released before its lease ended. */
		RELEASED,

		/** A late re-entry extended the lease. */
		EXTENDED,

		/** The lease ended before the release: lost. */
		LOST

	}

	/**
	 * Identity of one owner's hold on one lock: the lock key, its type and the owner: a thread's id, or a
	 * negative number for an owner that is not a thread.
	 */
	record HoldId(String key, LockType type, long owner) {
	}

}
