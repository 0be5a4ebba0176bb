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
 * {@linkplain #handedOver(Waiter, long, long) tells it}: the waiter owns the lock when its turn comes;</li>
 * <li><b>head passed</b> ({@link #leave(Waiter)}): the next waiter becomes the head and acquires in Redis
 * itself, as when another instance waits for the lock too, or the hand-over failed.</li>
 * </ul>
 * A head whose hard lease ran out (it overran it), or whose hold is known to be lost ({@link #headLost()}), no
 * longer blocks the queue: waiters then leave it and go to Redis on their own ({@link LocalTurn#BYPASS}), tries
 * without waiting too.
 * <p>
 * Thread-safe: queue changes happen while holding this object's monitor; turns are completed outside it.
 * Its members are counted by the owning map ({@link LocalQueues}), only inside that map's compute functions.
 */
final class LocalQueue {

	/** Owners that hold, wait for or try this lock now; the map entry goes when it drops to 0. */
	private int members;

	/** When the head's hard lease ends ({@link System#nanoTime()}), or {@code Long.MAX_VALUE} for none. */
	private volatile long holderDeadline = Long.MAX_VALUE;

	/** Waiting owners, first come first; made when the first owner has to wait. Guarded by {@code this}. */
	private @Nullable ArrayDeque<Waiter> waiters;

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
	 * @return the waiter, whose {@linkplain Waiter#turn() turn} completes with {@link LocalTurn#HEAD}, a hand-over
	 * (both make the owner the head, to leave with {@link #leave(Waiter)} or {@link #reserveNext()}),
	 * {@link LocalTurn#BYPASS}, {@link LocalTurn#TIMED_OUT}, or {@link LocalTurn#CANCELLED} after {@link #cancel(Waiter)}
	 */
	Waiter take(String owner, long leaseMillis, boolean tryOnce, long deadline) {
		Waiter waiter;
		synchronized (this) {
			if (!this.taken) {
				this.taken = true;
				return Waiter.HEAD_NOW;
			}
			// a head that overran its hard lease or is known lost blocks nobody, a try without waiting neither
			if (this.holderDeadline != Long.MAX_VALUE && System.nanoTime() - this.holderDeadline >= 0) {
				return Waiter.BYPASS_NOW;
			}
			if (tryOnce) {
				return Waiter.TIMED_OUT_NOW;
			}
			waiter = new Waiter(owner, leaseMillis);
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
		List<Waiter> bypassing = new ArrayList<>();
		synchronized (this) {
			if (this.holderDeadline != deadline || this.waiters == null) {
				return;
			}
			this.bypassTimer = null;
			for (Waiter waiter : this.waiters) {
				waiter.state = Waiter.CANCELLED;
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
	boolean cancel(Waiter waiter) {
		return end(waiter, LocalTurn.CANCELLED);
	}

	private boolean end(Waiter waiter, LocalTurn turn) {
		synchronized (this) {
			if (waiter.state != Waiter.WAITING || this.waiters == null) {
				return false;
			}
			this.waiters.remove(waiter);
			waiter.state = Waiter.CANCELLED;
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
	 * it cannot give up; the head must end with {@link #handedOver(Waiter, long, long)} or {@link #leave(Waiter)}.
	 * @return the next waiter, or {@code null} if none waits
	 */
	synchronized @Nullable Waiter reserveNext() {
		Waiter next = (this.waiters != null) ? this.waiters.pollFirst() : null;
		if (next != null) {
			next.state = Waiter.RESERVED;
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
	void handedOver(Waiter next, long at, long token) {
		synchronized (this) {
			clearHolderDeadline();
		}
		next.state = Waiter.HANDED_OVER;
		next.complete(new LocalTurn(at, token));
	}

	/**
	 * Called by the head when it leaves without handing the lock over, after its release in Redis: the next
	 * waiter becomes the head and acquires in Redis, where it now finds the lock free.
	 * @param reserved the waiter from {@link #reserveNext()} whose hand-over did not happen, or {@code null}
	 */
	void leave(@Nullable Waiter reserved) {
		Waiter next;
		synchronized (this) {
			clearHolderDeadline();
			next = (reserved != null) ? reserved : (this.waiters != null) ? this.waiters.pollFirst() : null;
			if (next == null) {
				this.taken = false;
				return;
			}
			next.state = Waiter.HEAD;
		}
		next.complete(LocalTurn.HEAD);
	}

	/** Counts one more member: called by {@link LocalQueues} inside its map's compute function. */
	void addMember() {
		this.members++;
	}

	/**
	 * Counts one member less: called by {@link LocalQueues} inside its map's compute function.
	 * @return {@code true} if none is left: the map drops the queue
	 */
	boolean removeMember() {
		return --this.members == 0;
	}

	/**
	 * One waiting owner of the queue; its state is the queue's and changes only under the queue's monitor. It goes
	 * from {@code WAITING} to {@code CANCELLED} (it gave up, timed out or bypassed), to {@code HEAD}, or to
	 * {@code RESERVED} and then {@code HANDED_OVER} or {@code HEAD}.
	 */
	static final class Waiter {


		static final int WAITING = 0;

		static final int RESERVED = 1;

		static final int HANDED_OVER = 2;

		static final int HEAD = 3;

		static final int CANCELLED = 4;

		/** The turn of an owner that found the queue empty. */
		static final Waiter HEAD_NOW = new Waiter(LocalTurn.HEAD, HEAD);

		/** The turn of a try without waiting that found the queue taken. */
		static final Waiter TIMED_OUT_NOW = new Waiter(LocalTurn.TIMED_OUT, CANCELLED);

		/** The turn of an owner that came after the head's hard lease ran out. */
		static final Waiter BYPASS_NOW = new Waiter(LocalTurn.BYPASS, CANCELLED);

		/** Owner id a hand-over records in Redis. */
		private final String owner;

		/** Lease in milliseconds that a hand-over gives this waiter. */
		private final long leaseMillis;

		private final CompletableFuture<LocalTurn> turn;

		/** Changed by its queue, under the queue's monitor. */
		private volatile int state;

		/** Ends the wait at its deadline; cancelled when the turn comes sooner. */
		private volatile @Nullable ScheduledFuture<?> timeout;

		Waiter(String owner, long leaseMillis) {
			this.owner = owner;
			this.leaseMillis = leaseMillis;
			this.turn = new CompletableFuture<>();
			this.state = WAITING;
		}

		private Waiter(LocalTurn turn, int state) {
			this.owner = "";
			this.leaseMillis = 0;
			this.turn = CompletableFuture.completedFuture(turn);
			this.state = state;
		}

		/** The attempt's owner id, which a hand-over records in Redis. */
		String owner() {
			return this.owner;
		}

		/** The lease, in milliseconds, that a hand-over gives this waiter. */
		long leaseMillis() {
			return this.leaseMillis;
		}

		/**
		 * Returns the owner's turn, completed on the thread that gives it (a release, the timer).
		 * @return the turn
		 */
		CompletableFuture<LocalTurn> turn() {
			return this.turn;
		}

		private void complete(LocalTurn given) {
			ScheduledFuture<?> pending = this.timeout;
			if (pending != null) {
				pending.cancel(false);
			}
			this.turn.complete(given);
		}

	}

}
