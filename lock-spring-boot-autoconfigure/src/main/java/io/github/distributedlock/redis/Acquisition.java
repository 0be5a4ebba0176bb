package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.redis.Hold.HoldId;
import org.jspecify.annotations.Nullable;

/**
 * One request for a lock, from start to hold: re-enters the owner's hold, or acquires anew: a read lock in
 * Redis; an exclusive lock through the owner's turn in the local queue, then from a hand-over or in Redis;
 * with replica sync, confirmed by the replicas or undone and tried again. Each step starts the next when it
 * ends, on whichever thread ended it: no thread waits. {@link #cancel()} ends a wait early.
 */
final class Acquisition extends PendingAcquisition {

	private final HoldAcquirer acquirer;

	private final HoldId id;

	private final String redisKey;

	/** The owner id in Redis of the attempt under way (see {@link HoldAcquirer#newAttempt(long)}). */
	private String owner = "";

	private final @Nullable Thread thread;

	private final long leaseMillis;

	private final boolean autoRenew;

	private final long holdAtLeastNanos;

	private final boolean tryOnce;

	private final long deadline;

	/** The key's permit count: 1 for a lock, more for a semaphore. */
	private final int permits;

	Acquisition(HoldAcquirer acquirer, HoldId id, String redisKey, @Nullable Thread thread, long leaseMillis,
			boolean autoRenew, long holdAtLeastNanos, boolean tryOnce, long deadline, int permits) {
		this.permits = permits;
		this.acquirer = acquirer;
		this.id = id;
		this.redisKey = redisKey;
		this.thread = thread;
		this.leaseMillis = leaseMillis;
		this.autoRenew = autoRenew;
		this.holdAtLeastNanos = holdAtLeastNanos;
		this.tryOnce = tryOnce;
		this.deadline = deadline;
	}

	/** Takes the first step, on the calling thread; each step starts the next. */
	void start() {
		try {
			if (this.cancelled) {
				this.result.complete(null);
				return;
			}
			Hold held = this.acquirer.holds.get(this.id);
			if (held != null && held.permits != this.permits) {
				throw LockCommands.otherPermits(this.id.type(), this.id.key(), this.redisKey, this.permits, held.permits);
			}
			if (held != null) {
				this.acquirer.reenter(held, this.leaseMillis).whenComplete((reentered, ex) -> guard(() -> {
					if (ex != null) {
						throw ScriptExecutor.unwrap(ex);
					}
					if (reentered) {
						finish(held);
					}
					else {
						acquireNew();
					}
				}));
				return;
			}
			Acquisition running = this.acquirer.inFlight.putIfAbsent(this.id, this);
			if (running != null) {
				// the same owner acquires this lock already (another branch of one reactive chain): wait for it,
				// then re-enter its hold, or acquire anew if it got none
				this.waitingStep = () -> this.result.complete(null);
				running.result().whenComplete((hold, ex) -> guard(() -> {
					if (this.deadline - System.nanoTime() <= 0) {
						this.result.complete(null);
					}
					else {
						start();
					}
				}));
				return;
			}
			this.result.whenComplete((hold, ex) -> this.acquirer.inFlight.remove(this.id, this));
			if (this.id.type() == LockType.WRITE
					&& this.acquirer.holds.containsKey(new HoldId(this.id.key(), LockType.READ, this.id.owner()))) {
				throw WaitingAcquirer.upgradeRefused(this.id.key());
			}
			acquireNew();
		}
		catch (RuntimeException ex) {
			this.result.completeExceptionally(ex);
		}
	}

	/**
	 * Acquires a lock the owner does not hold: a read lock in Redis; an exclusive lock through the local queue,
	 * from a hand-over or in Redis.
	 */
	private void acquireNew() {
		this.owner = this.acquirer.newAttempt(this.id.owner());
		if (this.id.type() == LockType.READ || this.permits > 1) {
			// shared: each owner waits in Redis, where a semaphore's waiters queue first come, first served
			waitInRedis(null, false);
			return;
		}
		// exclusive locks: owners of this client queue locally, so only the head of the queue talks to Redis
		LocalQueue queue = this.acquirer.queues.join(this.redisKey, this.id.type());
		LocalWaiter waiter = queue.take(this.owner, this.leaseMillis, this.tryOnce, this.deadline);
		CompletableFuture<LocalTurn> turn = waiter.turn();
		if (turn.isDone()) {
			onTurn(queue, turn.join());
			return;
		}
		this.waitingStep = () -> queue.cancel(waiter);
		if (this.cancelled) {
			queue.cancel(waiter);
		}
		turn.thenAccept((given) -> resume(() -> onTurn(queue, given)));
	}

	private void onTurn(LocalQueue queue, LocalTurn turn) {
		this.waitingStep = null;
		if (turn == LocalTurn.TIMED_OUT || turn == LocalTurn.CANCELLED) {
			leave(queue, false);
			this.result.complete(null);
		}
		else if (turn.handedOver()) {
			acquired(queue, true, turn.handedOverAt(), turn.token());
		}
		else {
			waitInRedis(queue, turn == LocalTurn.HEAD);
		}
	}

	private void waitInRedis(@Nullable LocalQueue queue, boolean head) {
		RedisWait wait;
		try {
			wait = this.acquirer.waiting.acquire(this.id.type(), this.permits, this.id.key(), this.redisKey, this.owner,
					downgradeFrom(), this.leaseMillis, this.tryOnce, this.deadline);
		}
		catch (RuntimeException ex) {
			leave(queue, head);
			throw ex;
		}
		this.waitingStep = wait::cancel;
		if (this.cancelled) {
			wait.cancel();
		}
		wait.result().whenComplete((acquired, ex) -> guard(() -> {
			this.waitingStep = null;
			if (ex != null || acquired == null) {
				leave(queue, head);
				if (ex != null) {
					throw ScriptExecutor.unwrap(ex);
				}
				this.result.complete(null);
			}
			else {
				acquired(queue, head, acquired.sentAt(), acquired.token());
			}
		}));
	}

	/**
	 * The owner id of the write hold this owner has on the lock, when it asks for the read side (a downgrade:
	 * the writer may read), or {@code ""}.
	 */
	private String downgradeFrom() {
		if (this.id.type() != LockType.READ) {
			return "";
		}
		Hold writer = this.acquirer.holds.get(new HoldId(this.id.key(), LockType.WRITE, this.id.owner()));
		return (writer != null) ? writer.owner : "";
	}

	/** Records the new hold, and confirms it with the replicas if replica sync is on. */
	private void acquired(@Nullable LocalQueue queue, boolean head, long sentAt, long token) {
		if (this.acquirer.waiting.closed.get()) {
			// the client closed while this acquisition waited: nothing would renew or release the hold, so it
			// goes at once
			leave(queue, head);
			this.acquirer.commands.withdraw(this.id.type(), this.permits, this.id.key(), this.redisKey, this.owner, true)
				.whenComplete((done, ex) -> this.result.completeExceptionally(closedClient()));
			return;
		}
		Hold hold = this.acquirer.onAcquired(this.id, this.redisKey, this.owner, this.thread, this.leaseMillis,
				this.autoRenew, sentAt, token, this.permits);
		if (queue != null) {
			hold.queue = queue;
			hold.queueHead = head;
			if (head && !hold.autoRenew) {
				// a hard lease: local waiters stop waiting for this holder when its lease ends
				queue.holderDeadline(hold.confirmedUntil);
			}
		}
		ReplicaSync replicaSync = this.acquirer.replicaSync;
		if (replicaSync == null) {
			finish(hold);
			return;
		}
		// replica sync: an acquisition too few replicas acknowledged is undone and tried again
		replicaSync.confirm(hold, this.acquirer.background).thenAccept((confirmed) -> guard(() -> {
			if (confirmed) {
				finish(hold);
				return;
			}
			this.acquirer.releaser.undo(hold).thenRun(() -> guard(() -> {
				if (this.tryOnce || this.cancelled || this.deadline - System.nanoTime() <= 0) {
					this.result.complete(null);
				}
				else {
					acquireNew();
				}
			}));
		}));
	}

	private void finish(Hold hold) {
		// counted from now, when the acquisition is known to have happened: the lock is then held at least that long
		hold.holdAtLeast(System.nanoTime(), this.holdAtLeastNanos);
		this.result.complete(hold);
	}

	/** Leaves the local queue of a lock not acquired; as its head, passes the head on. */
	private void leave(@Nullable LocalQueue queue, boolean head) {
		if (queue != null) {
			if (head) {
				queue.leave(null);
			}
			this.acquirer.queues.leave(this.redisKey, this.id.type());
		}
	}

	/**
	 * Runs the step after a turn: on the thread that gave the turn when scripts do not block, on a thread of its
	 * own when they do (a releasing owner, the timer must not wait for Redis).
	 */
	private void resume(Runnable step) {
		try {
			this.acquirer.resume.execute(() -> guard(step));
		}
		catch (RejectedExecutionException ex) {
			this.result.completeExceptionally(closedClient());
		}
	}

	/** Names the lock and the owner, for the shutdown's log. */
	String describe() {
		return "'" + this.id.key() + "' (" + HoldEvents.typeOf(this.id.type(), this.permits) + ", for "
				+ Hold.holder(this.thread, this.id.owner()) + ")";
	}

	static DistributedLockException closedClient() {
		return new DistributedLockException("This lock client is closed (the application is shutting down)");
	}

}
