package io.github.distributedlock.redlock;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * How one Redlock acquisition that may wait waits for another holder's release between two rounds: registered
 * with the client's {@link RedlockNotifications} for its key from its start to its end, it runs the next round as
 * soon as a node publishes the key, or after a fallback delay when no message comes (lost while a connection was
 * down, or a holder that crashed and publishes nothing). A message that came while a round was under way makes
 * the next round start at once, so a release during a round is not missed. A late or repeated message only
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

	private volatile @Nullable ScheduledFuture<?> fallback;

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
		this.registration = notifications.register(redisKey, this::released);
	}

	/**
	 * Notes that a round starts: a release published from now on makes the next round start at once.
	 */
	void roundStarts() {
		this.seen = this.releases.get();
	}

	/**
	 * Waits after a round that another holder refused: the next round runs when a node publishes the key, at once
	 * if one did since the round started, or after the fallback delay.
	 * @param fallbackNanos the longest wait, in nanoseconds
	 */
	void park(long fallbackNanos) {
		this.parked.set(true);
		ScheduledFuture<?> previous = this.fallback;
		if (previous != null) {
			previous.cancel(false);
		}
		try {
			this.fallback = this.scheduler.schedule(this::unpark, fallbackNanos, TimeUnit.NANOSECONDS);
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

	private void released() {
		this.releases.incrementAndGet();
		unpark();
	}

	private void unpark() {
		if (!this.parked.compareAndSet(true, false)) {
			return;
		}
		ScheduledFuture<?> current = this.fallback;
		if (current != null) {
			current.cancel(false);
		}
		try {
			// not on the I/O thread that delivered the message
			this.scheduler.execute(this.round);
		}
		catch (RejectedExecutionException ex) {
			this.closed.accept(ex);
		}
	}

}
