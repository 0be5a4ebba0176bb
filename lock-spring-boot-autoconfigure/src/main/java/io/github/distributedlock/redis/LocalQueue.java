package io.github.distributedlock.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The owners of one client that hold or wait for one exclusive lock: a fair (first come, first served) local
 * queue whose head is the only owner that talks to Redis for it. The head either holds the lock in Redis or is
 * acquiring it there; the others wait here, without a round trip and without a thread: each waiter's turn is a
 * future.
 * <p>
 * When the head releases, the lock goes to the next waiter in one of two ways:
 * <ul>
 * <li><b>hand-over</b>: the head {@linkplain #reserveNext() reserves} the next waiter, which can then no
 * longer give up, moves the ownership to it in Redis in the same round trip as its release, and
 * {@linkplain #handedOver(LocalWaiter, long, long) tells it}: the waiter owns the lock when its turn comes;</li>
 * <li><b>head passed</b> ({@link #leave(LocalWaiter)}): the next waiter becomes the head and acquires in Redis
 * itself, as when another instance waits for the lock too, or the hand-over failed.</li>
 * </ul>
 * A head whose hard lease ran out (it overran it), or whose hold is known to be lost ({@link #headLost()}), no
 * longer blocks the queue: waiters then leave it and go to Redis on their own ({@link LocalTurn#BYPASS}), tries
 * without waiting too.
 * <p>
 * Thread-safe: queue changes happen while holding this object's monitor; turns are completed outside it.
 * {@link #members} is the owning map's reference count and changes only inside that map's compute functions.
 */
final class LocalQueue {

	/** Owners that hold, wait for or try this lock now; the map entry goes when it drops to 0. */
	int members;

	/** When the head's hard lease ends ({@link System#nanoTime()}), or {@code Long.MAX_VALUE} for none. */
	private volatile long holderDeadline = Long.MAX_VALUE;

	/** Waiting owners, first come first; made when the first owner has to wait. Guarded by {@code this}. */
	private @Nullable ArrayDeque<LocalWaiter> waiters;

	/** Whether some owner is the head; while none is, the queue is empty. Guarded by {@code this}. */
	private boolean taken;

	/**
	 * Sends the waiters to Redis when the head's hard lease ends; scheduled only while some owner waits.
	 * Guarded by {@code this}.
	 */
	private @Nullable ScheduledFuture<?> bypassTimer;

	private final ScheduledExecutorService timer;

	/**
	 * @param timer ends waits at their deadline, and when the head's hard lease runs out
	 */
	LocalQueue(ScheduledExecutorService timer) {
		this.timer = timer;
	}

	/**
	 * Queues an owner for its turn: to become the head, or to be handed the lock.
	 * @param owner the owner id, what a hand-over records in Redis
	 * @param leaseMillis the lease (milliseconds) a hand-over gives it
	 * @param tryOnce whether to give up at once ({@link LocalTurn#TIMED_OUT}) instead of waiting
	 * @param deadline the {@link System#nanoTime()} to give up at
	 * @return the waiter, whose {@linkplain LocalWaiter#turn() turn} completes with {@link LocalTurn#HEAD}, a hand-over
	 * (both make the owner the head, to leave with {@link #leave(LocalWaiter)} or {@link #reserveNext()}),
	 * {@link LocalTurn#BYPASS}, {@link LocalTurn#TIMED_OUT}, or {@link LocalTurn#CANCELLED} after {@link #cancel(LocalWaiter)}
	 */
	LocalWaiter take(String owner, long leaseMillis, boolean tryOnce, long deadline) {
		LocalWaiter waiter;
		synchronized (this) {
			if (!this.taken) {
				this.taken = true;
				return LocalWaiter.HEAD_NOW;
			}
			// a head that overran its hard lease or is known lost blocks nobody, a try without waiting neither
			if (this.holderDeadline != Long.MAX_VALUE && System.nanoTime() - this.holderDeadline >= 0) {
				return LocalWaiter.BYPASS_NOW;
			}
			if (tryOnce) {
				return LocalWaiter.TIMED_OUT_NOW;
			}
			waiter = new LocalWaiter(owner, leaseMillis);
			if (this.waiters == null) {
				this.waiters = new ArrayDeque<>();
			}
			this.waiters.addLast(waiter);
			scheduleBypass();
		}
		if (deadline != Long.MAX_VALUE) {
			waiter.timeout = schedule(() -> end(waiter, LocalTurn.TIMED_OUT), deadline);
		}
		return waiter;
	}

	/**
	 * Records when the head's hard lease ends: its waiters then go to Redis on their own.
	 * @param deadline the {@link System#nanoTime()} the lease ends
	 */
	synchronized void holderDeadline(long deadline) {
		this.holderDeadline = deadline;
		if (this.waiters != null && !this.waiters.isEmpty()) {
			scheduleBypass();
		}
	}

	/**
	 * Records that the head's hold is known to be lost (its renewal found the lock gone, or its confirmed lease
	 * ended unrenewed): other instances may take the lock now, so this client's waiters go to Redis on their own
	 * at once, as after a hard lease's end, instead of waiting for the head's release. Redis still decides who
	 * gets the lock.
	 */
	synchronized void headLost() {
		clearHolderDeadline();
		holderDeadline(System.nanoTime());
	}

	/** Schedules the bypass of the waiters at the head's hard lease end, if it has one. Holds the monitor. */
	private void scheduleBypass() {
		long deadline = this.holderDeadline;
		if (deadline != Long.MAX_VALUE && this.bypassTimer == null) {
			this.bypassTimer = schedule(() -> bypass(deadline), deadline + TimeUnit.MILLISECONDS.toNanos(1));
		}
	}

	/** Forgets the head's hard lease end: a new head, or none. Holds the monitor. */
	private void clearHolderDeadline() {
		this.holderDeadline = Long.MAX_VALUE;
		if (this.bypassTimer != null) {
			this.bypassTimer.cancel(false);
			this.bypassTimer = null;
		}
	}

	private void bypass(long deadline) {
		List<LocalWaiter> bypassing = new ArrayList<>();
		synchronized (this) {
			if (this.holderDeadline != deadline || this.waiters == null) {
				return;
			}
			this.bypassTimer = null;
			for (LocalWaiter waiter : this.waiters) {
				waiter.state = LocalWaiter.CANCELLED;
				bypassing.add(waiter);
			}
			this.waiters.clear();
		}
		bypassing.forEach((waiter) -> waiter.complete(LocalTurn.BYPASS));
	}

	private @Nullable ScheduledFuture<?> schedule(Runnable task, long at) {
		try {
			return this.timer.schedule(task, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// the client is closing
			task.run();
			return null;
		}
	}

	/**
	 * Ends a wait if it still waits: what its deadline or its owner giving up does.
	 * @param waiter the waiter
	 * @return {@code true} if it was waiting (its turn is now {@link LocalTurn#CANCELLED}); {@code false} if its turn
	 * came already or is coming (it is the head, or being handed the lock)
	 */
	boolean cancel(LocalWaiter waiter) {
		return end(waiter, LocalTurn.CANCELLED);
	}

	private boolean end(LocalWaiter waiter, LocalTurn turn) {
		synchronized (this) {
			if (waiter.state != LocalWaiter.WAITING || this.waiters == null) {
				return false;
			}
			this.waiters.remove(waiter);
			waiter.state = LocalWaiter.CANCELLED;
		}
		waiter.complete(turn);
		return true;
	}

	/**
	 * Returns how many owners wait in this queue (not counting the head); for tests and diagnostics.
	 * @return the number of waiting owners
	 */
	synchronized int waiting() {
		return (this.waiters != null) ? this.waiters.size() : 0;
	}

	/**
	 * Called by the head about to release: takes the next waiter out of the queue for a hand-over. From now on
	 * it cannot give up; the head must end with {@link #handedOver(LocalWaiter, long, long)} or {@link #leave(LocalWaiter)}.
	 * @return the next waiter, or {@code null} if none waits
	 */
	synchronized @Nullable LocalWaiter reserveNext() {
		LocalWaiter next = (this.waiters != null) ? this.waiters.pollFirst() : null;
		if (next != null) {
			next.state = LocalWaiter.RESERVED;
		}
		return next;
	}

	/**
	 * Called by the head once Redis moved the lock to the reserved waiter: the waiter is the head now, and owns
	 * the lock.
	 * @param next the waiter from {@link #reserveNext()}
	 * @param at the {@link System#nanoTime()} before the hand-over was sent: its lease counts from then
	 * @param token the fencing token the hand-over gave it
	 */
	void handedOver(LocalWaiter next, long at, long token) {
		synchronized (this) {
			clearHolderDeadline();
		}
		next.state = LocalWaiter.HANDED_OVER;
		next.complete(new LocalTurn(at, token));
	}

	/**
	 * Called by the head when it leaves without handing the lock over, after its release in Redis: the next
	 * waiter becomes the head and acquires in Redis, where it now finds the lock free.
	 * @param reserved the waiter from {@link #reserveNext()} whose hand-over did not happen, or {@code null}
	 */
	void leave(@Nullable LocalWaiter reserved) {
		LocalWaiter next;
		synchronized (this) {
			clearHolderDeadline();
			next = (reserved != null) ? reserved : (this.waiters != null) ? this.waiters.pollFirst() : null;
			if (next == null) {
				this.taken = false;
				return;
			}
			next.state = LocalWaiter.HEAD;
		}
		next.complete(LocalTurn.HEAD);
	}

}
