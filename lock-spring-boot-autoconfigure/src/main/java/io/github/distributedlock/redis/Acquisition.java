package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.redis.Hold.HoldId;
import org.jspecify.annotations.Nullable;

/**
 * One request for a lock, from start to hold: re-enters the owner's hold, or acquires anew: a shared lock (a read
 * lock, a semaphore's permit) in Redis; an exclusive lock through the owner's turn in the local queue, then from a
 * hand-over or in Redis; with replica sync, confirmed by the replicas or undone and tried again. Each step starts
 * the next when it ends, on whichever thread ended it: no thread waits. The caller's side: its
 * {@linkplain #result() result}, giving up ({@link #cancel()}), and waiting for it on a thread
 * ({@link #await(boolean)}). Thread-safe.
 */
final class Acquisition {

	private final CompletableFuture<@Nullable Hold> result = new CompletableFuture<>();

	private final HoldAcquirer acquirer;

	private final HoldId id;

	private final String redisKey;

	private final LockKind kind;

	private final @Nullable Thread thread;

	private final long leaseMillis;

	private final boolean autoRenew;

	private final long holdAtLeastNanos;

	private final boolean tryOnce;

	/** The {@link System#nanoTime()} to give up at. */
	private final long deadline;

	private volatile boolean cancelled;

	/** Ends the step that waits now, if one does: a turn in the local queue, or a wait in Redis. */
	private volatile @Nullable Runnable waitingStep;

	/**
	 * @param acquirer the client's acquire side
	 * @param request what to acquire (checked when it was built)
	 * @param id the lock and the owner: a thread's id, or a negative number for an owner that is not a thread
	 * @param kind the kind of lock
	 * @param thread the owner thread, or {@code null} for an owner that is not a thread
	 */
	Acquisition(HoldAcquirer acquirer, LockRequest request, HoldId id, LockKind kind, @Nullable Thread thread) {
		Duration timeout = request.timeout();
		this.acquirer = acquirer;
		this.id = id;
		this.redisKey = acquirer.keyPrefix + id.key();
		this.kind = kind;
		this.thread = thread;
		this.leaseMillis = request.lease().toMillis();
		this.autoRenew = request.autoRenew();
		this.holdAtLeastNanos = HoldAcquirer.saturatedNanos(request.holdAtLeast());
		this.tryOnce = timeout != null && timeout.isZero();
		this.deadline = (timeout == null) ? Long.MAX_VALUE : System.nanoTime() + HoldAcquirer.saturatedNanos(timeout);
	}

	/**
	 * Returns the outcome.
	 * @return completes with the hold (new, or re-entered), or {@code null} if the deadline passed first or it
	 * was {@linkplain #cancel() cancelled}; fails with a {@link io.github.distributedlock.core.LockLostException}
	 * if a re-entry finds the lock lost, an {@link IllegalMonitorStateException} for an upgrade (write while
	 * holding read), an {@link IllegalStateException} if the key is a lock of the other kind, a
	 * {@link DistributedLockException} if Redis could not be reached
	 */
	CompletableFuture<@Nullable Hold> result() {
		return this.result;
	}

	/**
	 * Gives up: a wait ends within a round trip and the result completes with {@code null}, unless the lock was
	 * acquired meanwhile (a try in flight, a grant, a hand-over), which then wins and completes the result with
	 * the hold.
	 */
	void cancel() {
		this.cancelled = true;
		Runnable step = this.waitingStep;
		if (step != null) {
			step.run();
		}
	}

	/**
	 * Waits on the calling thread for the outcome. An interrupt, when {@code interruptible}, cancels the
	 * acquisition; if the lock was acquired at that moment the hold is returned and the interrupt status set again.
	 * @param interruptible whether an interrupt ends the wait; otherwise it goes on and the interrupt status is
	 * set again on return
	 * @return the hold, or {@code null} if not acquired in time
	 * @throws InterruptedException if interruptible, interrupted, and not acquired
	 * @throws RuntimeException what the acquisition failed with (see {@link #result()})
	 */
	@Nullable Hold await(boolean interruptible) throws InterruptedException {
		if (!interruptible) {
			return ScriptExecutor.await(this.result);
		}
		try {
			return this.result.get();
		}
		catch (ExecutionException ex) {
			throw ScriptExecutor.unwrap(ex);
		}
		catch (InterruptedException ex) {
			cancel();
			// a cancelled acquisition ends within a round trip: with the lock, if a try in flight got it
			Hold hold = ScriptExecutor.await(this.result);
			if (hold == null) {
				throw ex;
			}
			Thread.currentThread().interrupt();
			return hold;
		}
	}

	/** Takes the first step, on the calling thread; each step starts the next. */
	void start() {
		try {
			if (this.cancelled) {
				this.result.complete(null);
				return;
			}
			Hold held = this.acquirer.holds.get(this.id);
			if (held != null && held.permits() != this.kind.permits()) {
				throw LockKind.otherPermits(this.kind, this.id.key(), this.redisKey, held.permits());
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
	 * Acquires a lock the owner does not hold, as a new attempt: a shared lock in Redis; an exclusive lock through
	 * the local queue, from a hand-over or in Redis.
	 */
	private void acquireNew() {
		Attempt attempt = new Attempt(this.id, this.redisKey, this.kind, this.acquirer.newAttempt(this.id.owner()),
				this.leaseMillis, this.autoRenew, downgradeFrom());
		if (!this.kind.queuesLocally()) {
			// shared: each owner waits in Redis, where a semaphore's waiters queue first come, first served
			waitInRedis(attempt, null, false);
			return;
		}
		// exclusive locks: owners of this client queue locally, so only the head of the queue talks to Redis
		LocalQueue queue = this.acquirer.queues.join(this.redisKey, this.id.type());
		LocalQueue.Waiter waiter = queue.take(attempt.owner(), this.leaseMillis, this.tryOnce, this.deadline);
		CompletableFuture<LocalTurn> turn = waiter.turn();
		if (turn.isDone()) {
			onTurn(attempt, queue, turn.join());
			return;
		}
		this.waitingStep = () -> queue.cancel(waiter);
		if (this.cancelled) {
			queue.cancel(waiter);
		}
		turn.thenAccept((given) -> resume(() -> onTurn(attempt, queue, given)));
	}

	private void onTurn(Attempt attempt, LocalQueue queue, LocalTurn turn) {
		this.waitingStep = null;
		if (turn == LocalTurn.TIMED_OUT || turn == LocalTurn.CANCELLED) {
			leave(queue, false);
			this.result.complete(null);
		}
		else if (turn.handedOver()) {
			acquired(attempt, queue, true, turn.handedOverAt(), turn.token());
		}
		else {
			waitInRedis(attempt, queue, turn == LocalTurn.HEAD);
		}
	}

	private void waitInRedis(Attempt attempt, @Nullable LocalQueue queue, boolean head) {
		RedisWait wait;
		try {
			wait = this.acquirer.waiting.acquire(attempt, this.tryOnce, this.deadline);
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
				acquired(attempt, queue, head, acquired.sentAt(), acquired.token());
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
		return (writer != null) ? writer.owner() : "";
	}

	/** Records the new hold, and confirms it with the replicas if replica sync is on. */
	private void acquired(Attempt attempt, @Nullable LocalQueue queue, boolean head, long sentAt, long token) {
		if (this.acquirer.waiting.closed.get()) {
			// the client closed while this acquisition waited: nothing would renew or release the hold, so it
			// goes at once
			leave(queue, head);
			this.kind.withdraw(attempt, true).whenComplete((done, ex) -> this.result.completeExceptionally(closedClient()));
			return;
		}
		Hold hold = this.acquirer.onAcquired(attempt, sentAt, token, this.thread, queue, head);
		if (queue != null && head && !hold.autoRenew()) {
			// a hard lease: local waiters stop waiting for this holder when its lease ends
			queue.holderDeadline(hold.confirmedUntil());
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

	/** Runs a step; a failure ends the acquisition with it, so that its result always completes. */
	private void guard(Runnable step) {
		try {
			step.run();
		}
		catch (RuntimeException | Error ex) {
			this.result.completeExceptionally(ex);
		}
	}

	/** Names the lock and the owner, for the shutdown's log. */
	String describe() {
		return "'" + this.id.key() + "' (" + HoldEvents.typeOf(this.kind) + ", for "
				+ Hold.holder(this.thread, this.id.owner()) + ")";
	}

	static DistributedLockException closedClient() {
		return new DistributedLockException("This lock client is closed (the application is shutting down)");
	}

}
