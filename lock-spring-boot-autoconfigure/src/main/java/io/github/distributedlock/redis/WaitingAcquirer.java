package io.github.distributedlock.redis;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.core.DistributedLockException;

/**
 * Acquires a lock in Redis for one owner, trying again when a release notification wakes it or the holder's
 * lease would end (a crashed holder publishes nothing), and at least once a second, until a deadline. It
 * waits without a thread: each wait is a future that the notification or a timer completes. While it waits it
 * keeps a place in Redis, bounded in time and refreshed by each try: a reentrant waiter's place in the lock's
 * queue, a writer's claim (new readers wait behind it), a reader's claim (the next writer's release admits
 * it). So a waiter that dies ({@code kill -9}) holds nobody up for more than a few seconds. When it gives up
 * (its deadline, or {@link RedisWait#cancel()}), it withdraws what it left, and after a try whose outcome it never
 * learnt (a timed-out round trip that may have run), also a hold that try may have taken. Thread-safe.
 */
final class WaitingAcquirer {

	/**
	 * Longest wait between two tries: a waiter's place or claim lasts this plus {@link LockKind#CLAIM_SLACK_MILLIS}
	 * (read/write) after each try, and each try refreshes it; so a grant to a waiter that died holds the others up for that
	 * waiter's lease, not the previous holder's, and a dead writer's claim keeps readers out for seconds, not
	 * for its lease.
	 */
	static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** Wait bound when a foreign key without a TTL blocks the lock: it cannot expire, so retry now and then. */
	static final long NO_TTL_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	final NotificationListener notifications;

	/** Runs the withdrawal after an unknown outcome, so that the failed acquisition does not wait for it too. */
	final Executor background;

	/** Ends waits when their time passed. */
	final ScheduledExecutorService timer;

	/**
	 * Runs a try after a wait: on the thread that ended the wait when scripts do not block, on a thread of its
	 * own when they do (the timer and the subscription must not wait for Redis).
	 */
	final Executor resume;

	/** Numbers the waits in Redis, so that a grant wakes the wait it was made for and no later one. */
	private final AtomicLong waitIds = new AtomicLong();

	/** Set once the client is closed: a wait then ends at its next step, withdrawing what it left in Redis. */
	final AtomicBoolean closed;

	/** The attempts under way, so that closing the client can end them while Redis can still be reached. */
	private final Set<RedisWait> live = ConcurrentHashMap.newKeySet();

	/**
	 * @param background runs the withdrawal after a try whose outcome is unknown, off the failing thread (it is
	 * sent after that try on the same connection, so Redis runs it after the try)
	 * @param timer ends waits
	 * @param resume runs the tries that follow a wait
	 */
	WaitingAcquirer(NotificationListener notifications, Executor background, ScheduledExecutorService timer,
			Executor resume, AtomicBoolean closed) {
		this.closed = closed;
		this.notifications = notifications;
		this.background = background;
		this.timer = timer;
		this.resume = resume;
	}

	/**
	 * Starts acquiring in Redis; the first try is sent from the calling thread.
	 * @param attempt the attempt
	 * @param tryOnce whether to try once, without waiting or leaving anything in Redis
	 * @param deadline the {@link System#nanoTime()} to give up at
	 * @return the wait, whose {@linkplain RedisWait#result() result} completes with the acquisition, with
	 * {@code null} if the deadline passed or it was cancelled first, or exceptionally: with an
	 * {@link IllegalMonitorStateException} if a reader asks for the write lock (an upgrade), an
	 * {@link IllegalStateException} if the key is a lock of the other kind, a {@link DistributedLockException}
	 * if Redis could not be reached (what the failed try may have left in Redis is then withdrawn in the
	 * background)
	 */
	RedisWait acquire(Attempt attempt, boolean tryOnce, long deadline) {
		long waitId = this.waitIds.incrementAndGet();
		// register before the first try: a release between a failed try and the wait still wakes it
		NotificationWaiter waiter = tryOnce ? null : this.notifications.register(attempt.redisKey(), waitId);
		RedisWait wait = new RedisWait(this, attempt, deadline, waitId, waiter);
		this.live.add(wait);
		wait.tryLock();
		return wait;
	}

	/** Forgets an attempt that ended. */
	void ended(RedisWait wait) {
		this.live.remove(wait);
	}

	/**
	 * Ends every attempt under way, when the client closes: each withdraws what it left in Redis (its place in
	 * a queue, a claim, a grant it did not take yet), so that no release grants a lock to a client that is gone.
	 * @param timeoutMillis how long to wait for them, in milliseconds
	 */
	void cancelAll(long timeoutMillis) {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
		for (RedisWait wait : this.live) {
			wait.cancel();
		}
		for (RedisWait wait : this.live) {
			try {
				wait.result().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (Exception ex) {
				// ended otherwise, or not in time: what it left expires within seconds
			}
		}
	}

	/**
	 * How long a blocked try's wait may last: until its next try, at most {@link #RETRY_NANOS} away; its kind adds
	 * its slack ({@link LockKind#claimMillis}).
	 * @param remainingNanos until the deadline
	 * @return milliseconds, at least 1
	 */
	static long untilNextTryMillis(long remainingNanos) {
		return Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(remainingNanos, RETRY_NANOS)) + 1);
	}

	static IllegalMonitorStateException upgradeRefused(String key) {
		return new IllegalMonitorStateException("Cannot acquire the write lock '" + key
				+ "' while holding its read lock: upgrades are not supported, since two readers upgrading at once "
				+ "would wait for each other forever; release the read lock first (a write holder may take the "
				+ "read lock, a downgrade)");
	}

	/**
	 * An acquisition in Redis.
	 * @param sentAt the {@link System#nanoTime()} before the try that acquired was sent: its lease counts from then
	 * @param token the fencing token it was given
	 */
	record Acquired(long sentAt, long token) {
	}

}
