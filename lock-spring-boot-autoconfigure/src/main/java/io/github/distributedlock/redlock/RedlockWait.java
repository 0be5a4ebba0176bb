package io.github.distributedlock.redlock;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * How one Redlock acquisition that may wait waits for another holder's release between two rounds: registered
 * with the client's {@link RedlockNotifications} for its key from its start to its end, it runs the next round as
 * soon as a node's release message is offered to it (see {@link RedlockNotifications} for which waiter gets one),
 * or after a fallback delay when none comes (lost while a connection was down, given to another waiter, or a
 * holder that crashed and publishes nothing). A message offered while a round was under way makes the next round
 * start at once, so a release during a round is not missed. A late or repeated message only
 * causes one more round: a round that finds the key still held waits again. Thread-safe.
 */
final class RedlockWait {

	private final ScheduledExecutorService scheduler;

	private final Runnable round;

	private final Consumer<RuntimeException> closed;

	private final Runnable registration;

	/** How many times a node published the key since this wait started. */
	private final AtomicLong releases = new AtomicLong();

	/** The value of {@link #releases} when the last round started. */
	private volatile long seen;

	/** Whether the acquisition waits now; whoever sets it back to {@code false} runs the next round. */
	private final AtomicBoolean parked = new AtomicBoolean();

	/** Whether the round under way was started by a message: it takes the other nodes' copies of that message. */
	private volatile boolean woken;

	private volatile @Nullable ScheduledFuture<?> fallback;

	/** The longest random delay before a woken round, in nanoseconds. */
	private volatile long jitterNanos;

	/**
	 * Starts listening for the key's releases.
	 * @param notifications the client's notifications
	 * @param redisKey the lock's Redis key
	 * @param scheduler where the next round runs
	 * @param round the next round
	 * @param closed told when the scheduler refuses it: the client is closed
	 */
	RedlockWait(RedlockNotifications notifications, String redisKey, ScheduledExecutorService scheduler,
			Runnable round, Consumer<RuntimeException> closed) {
		this.scheduler = scheduler;
		this.round = round;
		this.closed = closed;
		this.registration = notifications.register(redisKey, this::offered);
	}

	/**
	 * Notes that a round starts: a release published from now on makes the next round start at once.
	 */
	void roundStarts() {
		this.seen = this.releases.get();
	}

	/**
	 * Notes that a round failed: from now on the copies of the message that woke it go to other waiters.
	 */
	void roundFailed() {
		this.woken = false;
	}

	/**
	 * Waits after a round that another holder refused: the next round runs when a node publishes the key (after a
	 * random delay of up to {@code jitterNanos}, so that the waiters of several instances woken by one release do
	 * not all vote at the same instant and split the nodes), at once if one did since the round started, or after
	 * the fallback delay.
	 * @param fallbackNanos the longest wait, in nanoseconds
	 * @param jitterNanos the longest random delay before a woken round, in nanoseconds
	 */
	void park(long fallbackNanos, long jitterNanos) {
		this.jitterNanos = jitterNanos;
		this.parked.set(true);
		ScheduledFuture<?> previous = this.fallback;
		if (previous != null) {
			previous.cancel(false);
		}
		try {
			this.fallback = this.scheduler.schedule(() -> {
				unpark();
			}, fallbackNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			this.parked.set(false);
			this.closed.accept(ex);
			return;
		}
		// set parked first, then look: a release between the round's start and here is seen either way
		if (this.releases.get() != this.seen) {
			unpark();
		}
	}

	/**
	 * Stops listening; called once the acquisition ended.
	 */
	void close() {
		this.registration.run();
		this.parked.set(false);
		ScheduledFuture<?> current = this.fallback;
		if (current != null) {
			current.cancel(false);
		}
	}

	/**
	 * A node released the key: wakes this waiter if it waits between two rounds. Tells whether the message is
	 * taken: when it woke this waiter, or this waiter's round was started by a message (the same release, told
	 * by another node: not given to one more waiter of this instance).
	 */
	private boolean offered() {
		this.releases.incrementAndGet();
		return unpark(true) || this.woken;
	}

	private boolean unpark() {
		return unpark(false);
	}

	private boolean unpark(boolean byMessage) {
		if (!this.parked.compareAndSet(true, false)) {
			return false;
		}
		this.woken = byMessage;
		ScheduledFuture<?> current = this.fallback;
		if (current != null) {
			current.cancel(false);
		}
		try {
			// not on the I/O thread that delivered the message
			this.scheduler.schedule(this.round, ThreadLocalRandom.current().nextLong(this.jitterNanos + 1),
					TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			this.closed.accept(ex);
		}
		return true;
	}

}
