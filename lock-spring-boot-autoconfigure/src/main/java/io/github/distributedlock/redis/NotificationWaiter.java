package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * One wait for a lock: a release notification or a grant signals it. A signal that arrives before
 * {@link #next} is asked for is kept, so none is lost; waiting costs no thread. The first {@link #next} tells the
 * subscription that the key is waited on (a sharded one subscribes to its slot only then, not for a try that
 * gets the lock at once).
 */
final class NotificationWaiter {

	private static final CompletableFuture<Void> SIGNALLED = CompletableFuture.completedFuture(null);

	final String redisKey;

	final long waitId;

	private volatile boolean granted;

	/** The grant's fencing token: written before {@link #granted}, read after. */
	private long grantedToken;

	/** Whether a signal came while nobody waited for one. Guarded by {@code this}. */
	private boolean signalled;

	/** The wait for the next signal, while there is one. Guarded by {@code this}. */
	private @Nullable CompletableFuture<Void> pending;

	/** Run once, when the wait first waits for a signal: its first try failed (see {@link #hasWaited()}). */
	private final Runnable firstWait;

	/** {@link #FRESH}, {@link #WAITED} (after {@link #firstWait} ran) or {@link #ENDED} (unregistered). */
	private final AtomicInteger state = new AtomicInteger(FRESH);

	private static final int FRESH = 0;

	private static final int WAITED = 1;

	private static final int ENDED = 2;

	NotificationWaiter(String redisKey, long waitId, Runnable firstWait) {
		this.redisKey = redisKey;
		this.waitId = waitId;
		this.firstWait = firstWait;
	}

	/**
	 * Ends the wait's count (it is unregistered): a later {@link #next} no longer tells of a first wait.
	 * @return {@code true} if it had waited, so that its first wait was told
	 */
	boolean end() {
		return this.state.getAndSet(ENDED) == WAITED;
	}

	/**
	 * Tells whether a release granted the lock to this wait: its owner holds it, with the lease it asked
	 * for, counted from a moment after its last failed try reached Redis.
	 * @return {@code true} once a grant arrived
	 */
	boolean isGranted() {
		return this.granted;
	}

	/**
	 * Returns the fencing token of the grant.
	 * @return the token, valid once {@link #isGranted()}
	 */
	long grantedToken() {
		return this.grantedToken;
	}

	/**
	 * A release granted the lock to this wait, with a fencing token: records it and wakes the wait.
	 * @param token the grant's fencing token
	 */
	void grant(long token) {
		this.grantedToken = token;
		this.granted = true;
		signal();
	}

	/** Wakes the wait, or keeps the signal for the next one. */
	void signal() {
		CompletableFuture<Void> woken;
		synchronized (this) {
			woken = this.pending;
			this.pending = null;
			if (woken == null) {
				this.signalled = true;
				return;
			}
		}
		woken.complete(null);
	}

	/**
	 * Waits for a signal, or for the time to pass, without a thread.
	 * @param nanos the longest wait
	 * @param timer ends the wait when the time passed
	 * @return completes (on the signalling or the timer's thread) when either happened; completed already
	 * if a signal came since the last wait
	 */
	CompletableFuture<Void> next(long nanos, ScheduledExecutorService timer) {
		if (this.state.get() == FRESH && this.state.compareAndSet(FRESH, WAITED)) {
			this.firstWait.run();
		}
		CompletableFuture<Void> next;
		synchronized (this) {
			if (this.signalled) {
				this.signalled = false;
				return SIGNALLED;
			}
			next = new CompletableFuture<>();
			this.pending = next;
		}
		ScheduledFuture<?> timeout;
		try {
			timeout = timer.schedule(() -> expire(next), nanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// the client is closing: end the wait now
			expire(next);
			return next;
		}
		next.whenComplete((done, ex) -> timeout.cancel(false));
		return next;
	}

	private void expire(CompletableFuture<Void> wait) {
		synchronized (this) {
			if (this.pending == wait) {
				this.pending = null;
			}
		}
		wait.complete(null);
	}

}
