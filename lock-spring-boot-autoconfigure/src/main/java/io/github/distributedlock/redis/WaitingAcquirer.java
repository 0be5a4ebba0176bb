package io.github.distributedlock.redis;

import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

/**
 * Acquires a lock in Redis for one owner, trying again when a release notification wakes it or the holder's
 * lease would end (a crashed holder publishes nothing), and at least once a second, until a deadline. While
 * it waits it keeps a place in Redis, bounded in time and refreshed by each try: a reentrant waiter's place
 * in the lock's queue, a writer's claim (new readers wait behind it), a reader's claim (the next writer's
 * release admits it). So a waiter that dies ({@code kill -9}) holds nobody up for more than a few seconds.
 * When it gives up, it withdraws what it left, and after a try whose outcome it never learnt (a timed-out
 * round trip that may have run), also a hold that try may have taken. Thread-safe.
 */
final class WaitingAcquirer {

	/**
	 * Longest wait between two tries: a waiter's place or claim lasts this plus {@link #CLAIM_SLACK_MILLIS}
	 * after each try, and each try refreshes it; so a grant to a waiter that died holds the others up for that
	 * waiter's lease, not the previous holder's, and a dead writer's claim keeps readers out for seconds, not
	 * for its lease.
	 */
	private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	/**
	 * How long (milliseconds) a read/write claim outlives the wait it announced, for the waiter's round trips
	 * and pauses; the reentrant script adds the same slack to its queue entries ({@code RL_ENTRY_SLACK}).
	 */
	private static final long CLAIM_SLACK_MILLIS = 2000;

	/** Wait bound when a foreign key without a TTL blocks the lock: it cannot expire, so retry now and then. */
	private static final long NO_TTL_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private final LockCommands commands;

	private final ReleaseNotifications notifications;

	/** Runs the withdrawal after an unknown outcome, so that the failed acquisition does not wait for it too. */
	private final Executor background;

	/** Numbers the waits in Redis, so that a grant wakes the wait it was made for and no later one. */
	private final AtomicLong waitIds = new AtomicLong();

	/**
	 * @param background runs the withdrawal after a try whose outcome is unknown, off the failing thread (it is
	 * sent after that try on the same connection, so Redis runs it after the try)
	 */
	WaitingAcquirer(LockCommands commands, ReleaseNotifications notifications, Executor background) {
		this.commands = commands;
		this.notifications = notifications;
		this.background = background;
	}

	/**
	 * Acquires in Redis for the calling thread.
	 * @param tryOnce whether to try once, without waiting or leaving anything in Redis
	 * @param deadline the {@link System#nanoTime()} to give up at
	 * @param interruptible whether an interrupt while waiting throws (unless the lock was granted meanwhile);
	 * otherwise the thread's interrupt status is set again on return
	 * @return the acquisition, or {@code null} if the deadline passed first
	 * @throws InterruptedException if interruptible and interrupted while waiting
	 * @throws IllegalMonitorStateException if a reader asks for the write lock (an upgrade)
	 * @throws IllegalStateException if the key is a lock of the other kind
	 * @throws DistributedLockException if Redis could not be reached; what the failed try may have left in
	 * Redis is withdrawn in the background
	 */
	@Nullable Acquired acquire(LockType type, String key, String redisKey, String owner, long leaseMillis,
			boolean tryOnce, long deadline, boolean interruptible) throws InterruptedException {
		long waitId = this.waitIds.incrementAndGet();
		// register before the first try: a release between a failed try and the wait still wakes us
		ReleaseNotifications.Waiter waiter = tryOnce ? null : this.notifications.register(redisKey, waitId);
		boolean interrupted = false;
		boolean acquired = false;
		boolean claimed = false;
		boolean outcomeUnknown = false;
		try {
			while (true) {
				long sentAt = System.nanoTime();
				long claim = tryOnce ? 0 : claimMillis(type, deadline - sentAt);
				ScriptExecutor.Pair tried;
				try {
					tried = this.commands.tryAcquire(type, key, redisKey, owner, leaseMillis, false, claim, waitId);
				}
				catch (DistributedLockException ex) {
					// the round trip failed, yet the try may have run in Redis and acquired
					outcomeUnknown = true;
					throw ex;
				}
				long result = tried.result();
				if (result == LockScripts.ACQUIRED) {
					acquired = true;
					return new Acquired(sentAt, tried.token());
				}
				if (result == LockScripts.UPGRADE) {
					throw upgradeRefused(key);
				}
				claimed |= claim > 0 && (result >= 0 || result == LockScripts.NO_TTL);
				long remaining = deadline - System.nanoTime();
				if (waiter == null || remaining <= 0) {
					return null;
				}
				// the holder's lease bounds the wait: a crashed holder publishes nothing
				long untilLeaseEnds = (result == LockScripts.NO_TTL) ? NO_TTL_RETRY_NANOS
						: TimeUnit.MILLISECONDS.toNanos(result + 1);
				try {
					waiter.await(Math.min(remaining, Math.min(untilLeaseEnds, RETRY_NANOS)));
				}
				catch (InterruptedException ex) {
					if (interruptible && !waiter.isGranted()) {
						throw ex;
					}
					interrupted = true;
				}
				// granted after this wait's last failed try reached Redis, so its lease counts from no earlier
				// than that try; if that was long ago, the next try finds the grant and confirms a full lease
				if (waiter.isGranted() && System.nanoTime() - sentAt < Hold.thirdOfLeaseNanos(leaseMillis)) {
					acquired = true;
					return new Acquired(sentAt, waiter.grantedToken());
				}
			}
		}
		finally {
			if (waiter != null) {
				this.notifications.unregister(waiter);
			}
			if (outcomeUnknown) {
				// the caller's failure comes within one command timeout, not two
				this.background.execute(() -> this.commands.withdraw(type, key, redisKey, owner, true));
			}
			else if (!acquired && claimed) {
				this.commands.withdraw(type, key, redisKey, owner, false);
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * How long a blocked try keeps the waiter's place or claim: until its next try (at most {@link #RETRY_NANOS}
	 * away), plus the slack for read/write claims.
	 */
	private static long claimMillis(LockType type, long remainingNanos) {
		long untilNextTry = Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.min(remainingNanos, RETRY_NANOS)) + 1);
		return (type == LockType.REENTRANT) ? untilNextTry : untilNextTry + CLAIM_SLACK_MILLIS;
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
