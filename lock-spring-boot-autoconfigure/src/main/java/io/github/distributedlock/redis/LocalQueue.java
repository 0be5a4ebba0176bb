package io.github.distributedlock.redis;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * The threads of one client that hold or wait for one exclusive lock: a fair (first come, first served)
 * local queue whose head is the only thread that talks to Redis for it. The head either holds the lock in
 * Redis or is acquiring it there; the others wait here, parked, without a round trip.
 * <p>
 * When the head releases, the lock goes to the next waiter in one of two ways:
 * <ul>
 * <li><b>hand-over</b>: the head {@linkplain #reserveNext() reserves} the next waiter, which can then no
 * longer give up, moves the ownership to it in Redis in the same round trip as its release, and
 * {@linkplain #handedOver(Waiter, long) tells it}: the waiter owns the lock when it wakes up;</li>
 * <li><b>head passed</b> ({@link #leave(Waiter)}): the next waiter becomes the head and acquires in Redis
 * itself, as when another instance waits for the lock too, or the hand-over failed.</li>
 * </ul>
 * A head whose hard lease ran out (it overran it) no longer blocks the queue: waiters then leave it and go to
 * Redis on their own ({@link Turn#BYPASS}).
 * <p>
 * Thread-safe: queue changes happen while holding this object's monitor (never across a wait); a waiter's state is published through a volatile
 * field and {@link LockSupport#unpark(Thread)}. {@link #members} is the owning map's reference count and
 * changes only inside that map's compute functions.
 */
final class LocalQueue {

	/** Threads that hold, wait for or try this lock now; the map entry goes when it drops to 0. */
	int members;

	/** When the head's hard lease ends ({@link System#nanoTime()}), or {@code Long.MAX_VALUE} for none. */
	volatile long holderDeadline = Long.MAX_VALUE;

	/** Waiting threads, first come first; made when the first thread has to wait. Guarded by {@code this}. */
	private @Nullable ArrayDeque<Waiter> waiters;

	/** Whether some thread is the head; while it is not, the queue is empty. Guarded by {@code this}. */
	private boolean taken;

	/**
	 * Waits for the calling thread's turn: to become the head, or to be handed the lock.
	 * @param owner the calling thread's owner id, what a hand-over records in Redis
	 * @param leaseMillis the lease (milliseconds) a hand-over gives the calling thread
	 * @param tryOnce whether to return {@link Turn#TIMED_OUT} at once instead of waiting
	 * @param deadline the {@link System#nanoTime()} to give up at
	 * @param interruptible whether an interrupt while waiting throws
	 * @return the turn; {@link Turn#HEAD} and a hand-over make the caller the head, to leave with
	 * {@link #leave(Waiter)} or {@link #reserveNext()}
	 * @throws InterruptedException if interruptible and interrupted before its turn came (its interrupt status
	 * is then cleared); an interrupt after its turn came is kept as the thread's interrupt status when
	 * interruptible, and reported in {@code interrupted[0]} when not
	 */
	Turn take(String owner, long leaseMillis, boolean tryOnce, long deadline, boolean interruptible,
			boolean[] interrupted) throws InterruptedException {
		Waiter waiter;
		synchronized (this) {
			if (!this.taken) {
				this.taken = true;
				return Turn.HEAD;
			}
			if (tryOnce) {
				return Turn.TIMED_OUT;
			}
			waiter = new Waiter(Thread.currentThread(), owner, leaseMillis);
			if (this.waiters == null) {
				this.waiters = new ArrayDeque<>();
			}
			this.waiters.addLast(waiter);
		}
		boolean pendingInterrupt = false;
		try {
			while (true) {
				int state = waiter.state;
				if (state == Waiter.HEAD) {
					return Turn.HEAD;
				}
				if (state == Waiter.HANDED_OVER) {
					return new Turn(waiter.handedOverAt, waiter.handedOverToken);
				}
				if (state == Waiter.RESERVED) {
					// the head is handing the lock over right now: its outcome comes within a round trip
					LockSupport.park(this);
					continue;
				}
				if (Thread.interrupted()) {
					if (interruptible && cancel(waiter)) {
						throw new InterruptedException();
					}
					pendingInterrupt = true;
					if (!interruptible) {
						interrupted[0] = true;
					}
				}
				long now = System.nanoTime();
				long holderDeadline = this.holderDeadline;
				boolean bypass = holderDeadline != Long.MAX_VALUE && now - holderDeadline >= 0;
				if ((bypass || deadline - now <= 0) && cancel(waiter)) {
					return bypass ? Turn.BYPASS : Turn.TIMED_OUT;
				}
				long wait = (holderDeadline == Long.MAX_VALUE) ? deadline - now
						: Math.min(deadline - now, holderDeadline - now + TimeUnit.MILLISECONDS.toNanos(1));
				LockSupport.parkNanos(this, Math.max(wait, 0));
			}
		}
		finally {
			if (pendingInterrupt && interruptible) {
				// its turn came at the same time: the caller goes on, and sees the interrupt in its next wait
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Returns how many threads wait in this queue (not counting the head); for tests and diagnostics.
	 * @return the number of waiting threads
	 */
	synchronized int waiting() {
		return (this.waiters != null) ? this.waiters.size() : 0;
	}

	/**
	 * Takes the waiter out of the queue if it is still waiting.
	 * @return {@code false} if its turn came already (it is the head, or being handed the lock)
	 */
	private synchronized boolean cancel(Waiter waiter) {
		if (waiter.state != Waiter.WAITING || this.waiters == null) {
			return false;
		}
		this.waiters.remove(waiter);
		waiter.state = Waiter.CANCELLED;
		return true;
	}

	/**
	 * Called by the head about to release: takes the next waiter out of the queue for a hand-over. From now on
	 * it cannot give up; the head must end with {@link #handedOver(Waiter, long)} or {@link #leave(Waiter)}.
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
		this.holderDeadline = Long.MAX_VALUE;
		next.handedOverAt = at;
		next.handedOverToken = token;
		next.state = Waiter.HANDED_OVER;
		LockSupport.unpark(next.thread);
	}

	/**
	 * Called by the head when it leaves without handing the lock over, after its release in Redis: the next
	 * waiter becomes the head and acquires in Redis, where it now finds the lock free.
	 * @param reserved the waiter from {@link #reserveNext()} whose hand-over did not happen, or {@code null}
	 */
	void leave(@Nullable Waiter reserved) {
		this.holderDeadline = Long.MAX_VALUE;
		Waiter next;
		synchronized (this) {
			next = (reserved != null) ? reserved : (this.waiters != null) ? this.waiters.pollFirst() : null;
			if (next == null) {
				this.taken = false;
				return;
			}
			next.state = Waiter.HEAD;
		}
		LockSupport.unpark(next.thread);
	}

	/**
	 * A thread's turn from {@link #take}: {@link #HEAD}, {@link #BYPASS}, {@link #TIMED_OUT} or a hand-over.
	 * @param handedOverAt for a hand-over, the {@link System#nanoTime()} its lease counts from; otherwise 0
	 * @param token for a hand-over, the fencing token it gave; otherwise 0
	 */
	record Turn(long handedOverAt, long token) {

		/** The caller is the head: it acquires in Redis. */
		static final Turn HEAD = new Turn(0, 0);

		/** The head overran its hard lease: the caller acquires in Redis without being the head. */
		static final Turn BYPASS = new Turn(0, 0);

		/** The deadline passed, or the lock was busy for a try without waiting. */
		static final Turn TIMED_OUT = new Turn(0, 0);

		/**
		 * Tells whether the lock was handed to the caller: it owns it in Redis already.
		 * @return {@code true} for a hand-over
		 */
		boolean handedOver() {
			return this != HEAD && this != BYPASS && this != TIMED_OUT;
		}

	}

	/**
	 * One waiting thread. Its state goes from {@code WAITING} to {@code CANCELLED} (it gave up), to
	 * {@code HEAD}, or to {@code RESERVED} and then {@code HANDED_OVER} or {@code HEAD}.
	 */
	static final class Waiter {

		static final int WAITING = 0;

		static final int RESERVED = 1;

		static final int HANDED_OVER = 2;

		static final int HEAD = 3;

		static final int CANCELLED = 4;

		final Thread thread;

		/** Owner id a hand-over records in Redis. */
		final String owner;

		/** Lease in milliseconds that a hand-over gives this waiter. */
		final long leaseMillis;

		/** Written before {@link #state} turns {@code HANDED_OVER}, read after. */
		long handedOverAt;

		/** Written before {@link #state} turns {@code HANDED_OVER}, read after. */
		long handedOverToken;

		volatile int state = WAITING;

		Waiter(Thread thread, String owner, long leaseMillis) {
			this.thread = thread;
			this.owner = owner;
			this.leaseMillis = leaseMillis;
		}

	}

}
