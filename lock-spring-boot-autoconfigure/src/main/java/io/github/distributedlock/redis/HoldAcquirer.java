package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.redis.Hold.HoldId;
import io.github.distributedlock.redis.LocalQueue.Turn;
import org.jspecify.annotations.Nullable;

/**
 * The acquire side of a {@link RedisLockClient}: re-enters a thread's hold (locally while its lease is
 * confirmed for long enough), queues the threads that want one exclusive lock locally so that only the first
 * talks to Redis, takes a hand-over from the previous local holder, or acquires in Redis through the
 * {@link WaitingAcquirer}; then records the hold and has the watchdog renew it. Thread-safe.
 */
final class HoldAcquirer {

	private final String keyPrefix;

	/** {@code <client id>:}, the start of every owner id of the client. */
	private final String ownerPrefix;

	private final ConcurrentHashMap<HoldId, Hold> holds;

	private final LocalQueues queues;

	private final LockCommands commands;

	private final WaitingAcquirer acquirer;

	private final LeaseWatchdog watchdog;

	/** Replica sync, or {@code null} when off (sync-replicas 0): then it costs no check but this null test. */
	private final @Nullable ReplicaSync replicaSync;

	/** Undoes an acquisition that too few replicas acknowledged. */
	private final HoldReleaser releaser;

	/** Tells the observer and the log of acquisitions and losses. */
	private final HoldEvents events;

	HoldAcquirer(String keyPrefix, String clientId, ConcurrentHashMap<HoldId, Hold> holds, LocalQueues queues,
			LockCommands commands, WaitingAcquirer acquirer, LeaseWatchdog watchdog,
			@Nullable ReplicaSync replicaSync, HoldReleaser releaser, HoldEvents events) {
		this.keyPrefix = keyPrefix;
		this.ownerPrefix = clientId + ":";
		this.holds = holds;
		this.queues = queues;
		this.commands = commands;
		this.acquirer = acquirer;
		this.watchdog = watchdog;
		this.replicaSync = replicaSync;
		this.releaser = releaser;
		this.events = events;
	}

	/**
	 * Acquires or re-enters a lock for the calling thread.
	 * @param owner the calling thread's owner id
	 * @param timeout how long to wait; zero tries once; {@code null} waits without limit
	 * @return the hold, or {@code null} if the timeout passed first
	 * @throws InterruptedException if interruptible and interrupted while waiting
	 * @throws LockLostException if a re-entry finds the lock lost
	 * @throws IllegalMonitorStateException for an upgrade (write while holding read)
	 * @throws IllegalStateException if the key is a lock of the other kind
	 * @throws DistributedLockException if Redis could not be reached
	 */
	@Nullable Hold acquire(String key, LockType type, long leaseMillis, boolean autoRenew,
			@Nullable Duration timeout, boolean interruptible) throws InterruptedException {
		long threadId = Thread.currentThread().getId();
		HoldId id = new HoldId(key, type, threadId);
		Hold held = this.holds.get(id);
		if (held != null && reenter(held, leaseMillis)) {
			return held;
		}
		if (type == LockType.WRITE && this.holds.containsKey(new HoldId(key, LockType.READ, threadId))) {
			throw WaitingAcquirer.upgradeRefused(key);
		}
		String redisKey = this.keyPrefix + key;
		String owner = this.ownerPrefix + threadId;
		boolean tryOnce = timeout != null && timeout.isZero();
		long deadline = (timeout == null) ? Long.MAX_VALUE : System.nanoTime() + saturatedNanos(timeout);
		while (true) {
			Hold hold = acquireNew(id, redisKey, owner, leaseMillis, autoRenew, tryOnce, deadline, interruptible);
			// replica sync: an acquisition too few replicas acknowledged is undone and tried again
			if (hold == null || this.replicaSync == null || this.replicaSync.confirm(hold)) {
				return hold;
			}
			this.releaser.undo(hold);
			if (tryOnce || deadline - System.nanoTime() <= 0) {
				return null;
			}
		}
	}

	/**
	 * Acquires a lock the calling thread does not hold: a read lock in Redis; an exclusive lock through the
	 * local queue, from a hand-over or in Redis.
	 * @return the new hold, or {@code null} if the deadline passed first
	 */
	private @Nullable Hold acquireNew(HoldId id, String redisKey, String owner, long leaseMillis, boolean autoRenew,
			boolean tryOnce, long deadline, boolean interruptible) throws InterruptedException {
		String key = id.key();
		LockType type = id.type();
		if (type == LockType.READ) {
			WaitingAcquirer.Acquired acquired = this.acquirer.acquire(type, key, redisKey, owner, leaseMillis, tryOnce,
					deadline, interruptible);
			return (acquired != null) ? onAcquired(id, redisKey, owner, leaseMillis, autoRenew, acquired.sentAt(),
					acquired.token()) : null;
		}
		// exclusive locks: threads of this client queue locally, so only the head of the queue talks to Redis
		LocalQueue queue = this.queues.join(redisKey, type);
		boolean head = false;
		Hold hold = null;
		boolean[] interrupted = { false };
		try {
			Turn turn = queue.take(owner, leaseMillis, tryOnce, deadline, interruptible, interrupted);
			if (turn == Turn.TIMED_OUT) {
				return null;
			}
			head = turn != Turn.BYPASS;
			if (turn.handedOver()) {
				hold = onAcquired(id, redisKey, owner, leaseMillis, autoRenew, turn.handedOverAt(), turn.token());
			}
			else {
				WaitingAcquirer.Acquired acquired = this.acquirer.acquire(type, key, redisKey, owner, leaseMillis,
						tryOnce, deadline, interruptible);
				hold = (acquired != null) ? onAcquired(id, redisKey, owner, leaseMillis, autoRenew, acquired.sentAt(),
						acquired.token()) : null;
			}
			if (hold != null) {
				hold.queue = queue;
				hold.queueHead = head;
				if (head && !hold.autoRenew) {
					// a hard lease: local waiters stop waiting for this holder when its lease ends
					queue.holderDeadline = hold.confirmedUntil;
				}
			}
			return hold;
		}
		finally {
			if (hold == null) {
				if (head) {
					queue.leave(null);
				}
				this.queues.leave(redisKey, type);
			}
			if (interrupted[0]) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Re-enters a hold of the calling thread.
	 * @return {@code false} if the hold was released meanwhile (by a handle closed on another thread): the
	 * caller acquires anew
	 */
	private boolean reenter(Hold hold, long leaseMillis) {
		// under the hold's monitor: a handle closed on another thread must not release it halfway through
		synchronized (hold) {
			if (hold.released) {
				return false;
			}
			if (hold.lostReason != null) {
				throw new LockLostException(hold.id.key(), hold.lostReason + "; it cannot be re-entered");
			}
			// while the last acquire or renewal still guarantees the lock for a third of the lease or more, a
			// re-entry needs no round trip; a longer lease, or one nearly run out, is extended in Redis
			if (leaseMillis <= hold.leaseMillis
					&& hold.confirmedUntil - System.nanoTime() > hold.renewalPeriodNanos()) {
				hold.count++;
				return true;
			}
			long sentAt = System.nanoTime();
			// a failure leaves the outcome unknown: the last release then releases whatever Redis records
			long result = this.commands.tryAcquire(hold.id.type(), hold.id.key(), hold.redisKey, hold.owner,
					leaseMillis, true, 0, 0).result();
			if (result == LockScripts.ACQUIRED) {
				hold.count++;
				long confirmed = sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
				if (confirmed - hold.confirmedUntil > 0) {
					hold.confirmedUntil = confirmed;
				}
				return true;
			}
		}
		String reason = "its lease of " + hold.leaseMillis + " ms ran out before it was re-entered";
		hold.markLost(reason);
		this.events.lost(hold);
		throw new LockLostException(hold.id.key(), reason);
	}

	private Hold onAcquired(HoldId id, String redisKey, String owner, long leaseMillis, boolean autoRenew,
			long sentAt, long token) {
		Hold hold = new Hold(id, redisKey, owner, leaseMillis, autoRenew, sentAt, token);
		this.holds.put(id, hold);
		this.events.acquired(hold);
		if (autoRenew) {
			this.watchdog.sweepBy(hold.nextRenewal);
		}
		return hold;
	}

	private static long saturatedNanos(Duration duration) {
		return RedisLockClient.saturatedNanos(duration);
	}

}
