package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

/**
 * One owner's acquisition in Redis: a try, then a wait and another try, until it acquires, gives up or is
 * cancelled. Its steps run one after another, each started by the end of the one before.
 */
final class RedisWait {

	private final CompletableFuture<WaitingAcquirer.@Nullable Acquired> result = new CompletableFuture<>();

	private final WaitingAcquirer acquirer;

	private final LockType type;

	private final String key;

	private final String redisKey;

	private final String owner;

	private final long leaseMillis;

	private final long deadline;

	private final long waitId;

	/** Wakes the wait; {@code null} for a single try. */
	private final @Nullable ReleaseWaiter waiter;

	private volatile boolean cancelled;

	/** Whether a try left a place or claim in Redis. Written by one step at a time. */
	private boolean claimed;

	/** When the last try was sent ({@link System#nanoTime()}). Written by one step at a time. */
	private long sentAt;

	RedisWait(WaitingAcquirer acquirer, LockType type, String key, String redisKey, String owner, long leaseMillis,
			long deadline, long waitId, @Nullable ReleaseWaiter waiter) {
		this.acquirer = acquirer;
		this.type = type;
		this.key = key;
		this.redisKey = redisKey;
		this.owner = owner;
		this.leaseMillis = leaseMillis;
		this.deadline = deadline;
		this.waitId = waitId;
		this.waiter = waiter;
	}

	/**
	 * Returns the outcome.
	 * @return completes with the acquisition, or {@code null} if not acquired (see {@link WaitingAcquirer#acquire})
	 */
	CompletableFuture<WaitingAcquirer.@Nullable Acquired> result() {
		return this.result;
	}

	/**
	 * Gives up waiting: the wait ends within a round trip, with {@code null}, unless its try in flight (or a
	 * grant that arrived) acquired the lock, which then wins.
	 */
	void cancel() {
		this.cancelled = true;
		if (this.waiter != null) {
			this.waiter.signal();
		}
	}

	void tryLock() {
		if (this.cancelled) {
			giveUp();
			return;
		}
		long sent = System.nanoTime();
		this.sentAt = sent;
		long claim = (this.waiter == null) ? 0 : WaitingAcquirer.claimMillis(this.type, this.deadline - sent);
		CompletableFuture<ScriptExecutor.Pair> tried;
		try {
			tried = this.acquirer.commands.tryAcquire(this.type, this.key, this.redisKey, this.owner,
					this.leaseMillis, false, claim, this.waitId);
		}
		catch (RuntimeException ex) {
			tried = CompletableFuture.failedFuture(ex);
		}
		tried.whenComplete((reply, ex) -> {
			try {
				tried(reply, ex, claim);
			}
			catch (RuntimeException failure) {
				fail(failure, false);
			}
		});
	}

	private void tried(ScriptExecutor.@Nullable Pair reply, @Nullable Throwable ex, long claim) {
		if (ex != null || reply == null) {
			RuntimeException failure = ScriptExecutor.unwrap(ex);
			// a round trip that failed may have run in Redis and acquired: its outcome is unknown, unless its
			// connection was never made or Redis refused the command
			boolean outcomeUnknown = failure instanceof DistributedLockException && !RedisFailures.ranNothing(failure);
			fail(failure, outcomeUnknown);
			return;
		}
		long result = reply.result();
		if (result == LockScripts.ACQUIRED) {
			succeed(new WaitingAcquirer.Acquired(this.sentAt, reply.token()));
			return;
		}
		if (result == LockScripts.UPGRADE) {
			fail(WaitingAcquirer.upgradeRefused(this.key), false);
			return;
		}
		this.claimed |= claim > 0 && (result >= 0 || result == LockScripts.NO_TTL);
		long remaining = this.deadline - System.nanoTime();
		if (this.waiter == null || remaining <= 0 || this.cancelled) {
			giveUp();
			return;
		}
		// the holder's lease bounds the wait: a crashed holder publishes nothing
		long untilLeaseEnds = (result == LockScripts.NO_TTL) ? WaitingAcquirer.NO_TTL_RETRY_NANOS
				: TimeUnit.MILLISECONDS.toNanos(result + 1);
		CompletableFuture<Void> woken = this.waiter.next(Math.min(remaining, Math.min(untilLeaseEnds, WaitingAcquirer.RETRY_NANOS)),
				this.acquirer.timer);
		if (woken.isDone()) {
			afterWait();
		}
		else {
			woken.whenComplete((done, failure) -> resumeAfterWait());
		}
	}

	private void resumeAfterWait() {
		try {
			this.acquirer.resume.execute(this::afterWait);
		}
		catch (RejectedExecutionException ex) {
			fail(new DistributedLockException("This lock client is closed (the application is shutting down)"),
					false);
		}
	}

	private void afterWait() {
		try {
			ReleaseWaiter granted = this.waiter;
			// granted after this wait's last failed try reached Redis, so its lease counts from no earlier
			// than that try; if that was long ago, the next try finds the grant and confirms a full lease
			if (granted != null && granted.isGranted()
					&& System.nanoTime() - this.sentAt < Hold.thirdOfLeaseNanos(this.leaseMillis)) {
				succeed(new WaitingAcquirer.Acquired(this.sentAt, granted.grantedToken()));
				return;
			}
			tryLock();
		}
		catch (RuntimeException ex) {
			fail(ex, false);
		}
	}

	private void succeed(WaitingAcquirer.Acquired acquired) {
		unregister();
		this.result.complete(acquired);
	}

	/** Ends without the lock, withdrawing the place or claim it left first. */
	private void giveUp() {
		unregister();
		if (this.claimed) {
			this.acquirer.commands.withdraw(this.type, this.key, this.redisKey, this.owner, false)
				.whenComplete((done, ex) -> this.result.complete(null));
		}
		else {
			this.result.complete(null);
		}
	}

	private void fail(RuntimeException failure, boolean outcomeUnknown) {
		unregister();
		if (outcomeUnknown) {
			// the caller's failure comes within one command timeout, not two
			try {
				this.acquirer.background.execute(() -> this.acquirer.commands.withdraw(this.type,
						this.key, this.redisKey, this.owner, true));
			}
			catch (RejectedExecutionException ex) {
				// closed: what the try took ends with its lease
			}
			this.result.completeExceptionally(failure);
		}
		else if (this.claimed) {
			this.acquirer.commands.withdraw(this.type, this.key, this.redisKey, this.owner, false)
				.whenComplete((done, ex) -> this.result.completeExceptionally(failure));
		}
		else {
			this.result.completeExceptionally(failure);
		}
	}

	private void unregister() {
		if (this.waiter != null) {
			this.acquirer.notifications.unregister(this.waiter);
		}
	}

}
