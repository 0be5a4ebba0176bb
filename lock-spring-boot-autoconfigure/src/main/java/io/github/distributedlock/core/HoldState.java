package io.github.distributedlock.core;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * The bookkeeping every store keeps for one owner's hold of one lock, for {@link LockClient} implementations: the
 * hold count (re-entries included), whether its last hold was released, why it was lost, until when its lease is
 * confirmed, and the signal of its loss ({@link LockLossSignal}, which its handles' {@code whenLost()} read). A
 * store's hold keeps one and changes it only through these transitions, each atomic:
 * <ul>
 * <li>{@link #reenter()} adds a hold unless the last was released;</li>
 * <li>{@link #releaseOne()} takes one away, and tells which was the last; {@link #releaseAll()} ends the hold at
 * once (a hold whose owner is gone);</li>
 * <li>{@link #markLost(String)} records the first reason a loss was learnt for (a later one does not replace
 * it), and {@link #markLostIfHeld(String)} only while the hold is not released;</li>
 * <li>{@link #confirmUntil(long)} moves the confirmed lease later, never earlier;</li>
 * <li>{@link #claimLossReport()} and {@link #reportLossOnce(Consumer)} let the loss be told once however many
 * paths learn it.</li>
 * </ul>
 * A store may guard state of its own with its hold's monitor and call these from within it; these never call out
 * while they hold this object's monitor, except {@link #reportLossOnce(Consumer)}, which runs its report under it.
 * Thread-safe; the reads ({@link #lostReason()}, {@link #isReleased()}, {@link #confirmedUntil()}) take no lock.
 */
public final class HoldState {

	private final LockLossSignal lossSignal = new LockLossSignal();

	/** Holds of the owner, re-entries included; 0 once released. Guarded by this. */
	private int count = 1;

	private volatile boolean released;

	private volatile @Nullable String lostReason;

	/** {@link System#nanoTime()} until which the last confirmed acquisition or renewal guarantees the lock. */
	private volatile long confirmedUntil;

	/** Whether the loss was told (or is being told). Guarded by this. */
	private boolean lossReported;

	/**
	 * Creates the state of a hold just acquired: one hold, not released, not lost.
	 * @param confirmedUntil the {@link System#nanoTime()} until which the acquisition guarantees the lock: its
	 * sending plus its lease, for a store whose leases are confirmed remotely
	 */
	public HoldState(long confirmedUntil) {
		this.confirmedUntil = confirmedUntil;
	}

	/**
	 * Adds a hold: a re-entry of the owner.
	 * @return {@code true} if added; {@code false} if the last hold was released already (by a handle closed on
	 * another thread): the owner acquires anew
	 */
	public synchronized boolean reenter() {
		if (this.released) {
			return false;
		}
		this.count++;
		return true;
	}

	/**
	 * Takes one hold away.
	 * @return {@link Release#INNER} if holds are left, {@link Release#LAST} if that was the last (the store
	 * releases the lock), {@link Release#ALREADY_RELEASED} if it was released before
	 */
	public synchronized Release releaseOne() {
		if (this.released) {
			return Release.ALREADY_RELEASED;
		}
		if (--this.count > 0) {
			return Release.INNER;
		}
		this.released = true;
		return Release.LAST;
	}

	/**
	 * Ends the hold whatever its count: for a hold whose owner cannot release it any more.
	 * @return {@code true} if this ended it, {@code false} if it was released already
	 */
	public synchronized boolean releaseAll() {
		if (this.released) {
			return false;
		}
		this.count = 0;
		this.released = true;
		return true;
	}

	/**
	 * Returns the owner's holds, re-entries included.
	 * @return the count; 0 once released
	 */
	public synchronized int count() {
		return this.count;
	}

	/**
	 * Tells whether the last hold was released (or the hold ended otherwise).
	 * @return {@code true} once released
	 */
	public boolean isReleased() {
		return this.released;
	}

	/**
	 * Records that the lock was lost, unless a loss was recorded before (the first reason stays).
	 * @param reason why, as the {@link LockLostException} says it
	 * @return {@code true} if this call recorded it
	 */
	public synchronized boolean markLost(String reason) {
		if (this.lostReason != null) {
			return false;
		}
		this.lostReason = reason;
		return true;
	}

	/**
	 * Records that the lock was lost while it is held: not once released (a loss learnt after the release is the
	 * release's to tell), nor if a loss was recorded before.
	 * @param reason why, as the {@link LockLostException} says it
	 * @return {@code true} if this call recorded it: the caller tells the loss
	 */
	public synchronized boolean markLostIfHeld(String reason) {
		if (this.released || this.lostReason != null) {
			return false;
		}
		this.lostReason = reason;
		return true;
	}

	/**
	 * Returns why the lock was lost.
	 * @return the reason, or {@code null} while no loss was recorded
	 */
	public @Nullable String lostReason() {
		return this.lostReason;
	}

	/**
	 * Returns until when the lock is confirmed.
	 * @return a {@link System#nanoTime()} value, in the past once the confirmed lease ended
	 */
	public long confirmedUntil() {
		return this.confirmedUntil;
	}

	/**
	 * Moves the confirmed lease later after a confirmed renewal or re-entry; never earlier.
	 * @param until the {@link System#nanoTime()} until which the confirmation guarantees the lock
	 */
	public synchronized void confirmUntil(long until) {
		if (until - this.confirmedUntil > 0) {
			this.confirmedUntil = until;
		}
	}

	/**
	 * Claims the telling of the loss: the first caller after {@link #markLost} tells it, nobody after.
	 * @return {@code true} the first time a recorded loss is claimed
	 */
	public synchronized boolean claimLossReport() {
		if (this.lostReason == null || this.lossReported) {
			return false;
		}
		this.lossReported = true;
		return true;
	}

	/**
	 * Tells whether the loss was claimed for telling.
	 * @return {@code true} once {@link #claimLossReport()} or {@link #reportLossOnce} took it
	 */
	public synchronized boolean isLossReported() {
		return this.lossReported;
	}

	/**
	 * Tells the loss once: runs {@code report} with the reason the first time after {@link #markLost}, never
	 * again. A caller that comes while another thread tells it waits until that is done (the report runs under
	 * this object's monitor), so a release can tell its hold's loss before the release, whichever thread tells it.
	 * @param report what tells the loss, given the reason; it must not wait for another thread that reports
	 */
	public synchronized void reportLossOnce(Consumer<String> report) {
		String reason = this.lostReason;
		if (reason != null && !this.lossReported) {
			this.lossReported = true;
			report.accept(reason);
		}
	}

	/**
	 * Returns the signal of the loss, one per hold (re-entries share it).
	 * @return the signal
	 */
	public LockLossSignal lossSignal() {
		return this.lossSignal;
	}

	/**
	 * What {@link #releaseOne()} did.
	 */
	public enum Release {

		/** Holds are left: the lock stays held. */
		INNER,

		/** That was the last hold: the store releases the lock. */
		LAST,

		/** It was released before: a release too many. */
		ALREADY_RELEASED

	}

}
