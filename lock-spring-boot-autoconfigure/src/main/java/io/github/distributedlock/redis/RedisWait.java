package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition attempt in Redis: a try, then a wait and another try, until it acquires, gives up or is
 * cancelled. Its steps run one after another, each started by the end of the one before.
 * <p>
 * Every try names the same attempt (its owner id), so a try sent again after a round trip that failed is safe:
 * if the failed one ran after all, the next one finds the lock held by this attempt and holds it once. So a
 * try whose round trip failed on a dropped connection or a timeout is sent again, after a short pause, until
 * the deadline; only then does the attempt give up, withdrawing whatever its tries may have left in Redis
 * ({@link WaitLeftovers}: a place in the queue, a claim, a grant, a hold its lost reply would have told of). A
 * grant or a hold is entered only from a reply or a grant message for this attempt: never guessed.
 */
final class RedisWait {

	/** Pauses before a try is sent again after its round trip failed, in milliseconds; the last one repeats. */
	private static final long[] RETRY_PAUSES_MILLIS = { 10, 25, 50, 100, 200, 300 };

	private final CompletableFuture<WaitingAcquirer.@Nullable Acquired> result = new CompletableFuture<>();

	private final WaitingAcquirer acquirer;

	/** The attempt: every try names it. */
	private final Attempt attempt;

	/** The {@link System#nanoTime()} to give up at. */
	private final long deadline;

	private final long waitId;

	/** Wakes the wait; {@code null} for a single try. */
	private final @Nullable NotificationWaiter waiter;

	private volatile boolean cancelled;

	/** What the tries may have left in Redis, withdrawn when the wait ends without the lock. */
	private final WaitLeftovers withdrawal;

	/** How many tries in a row failed. Written by one step at a time. */
	private int failures;

	/**
	 * When the last try that Redis answered was sent ({@link System#nanoTime()}), or the first try while none
	 * was answered: a grant for this wait ran in Redis after it, so its lease counts from no earlier. Not the last
	 * try sent, which may have failed without running, after the grant. Written by one step at a time.
	 */
	private long grantFloor;

	/**
	 * Tries due at once after a wait that was over when asked for, counted while one step runs them (see
	 * {@link #waitThenTry}): 0 when none runs.
	 */
	private final AtomicInteger immediateTries = new AtomicInteger();

	/** Whether a try was sent. Written by one step at a time. */
	private boolean triedOnce;

	/** Whether the wait was logged as started ({@link WaitLog}, DEBUG only). Written by one step at a time. */
	private boolean waitLogged;

	/**
	 * @param acquirer the client's waiting side
	 * @param attempt the attempt
	 * @param deadline the {@link System#nanoTime()} to give up at
	 * @param waitId the number of this wait, echoed by a grant
	 * @param waiter wakes the wait; {@code null} for a single try
	 */
	RedisWait(WaitingAcquirer acquirer, Attempt attempt, long deadline, long waitId, @Nullable NotificationWaiter waiter) {
		this.acquirer = acquirer;
		this.attempt = attempt;
		this.deadline = deadline;
		this.waitId = waitId;
		this.waiter = waiter;
		this.withdrawal = new WaitLeftovers();
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
		if (this.acquirer.closed.get()) {
			fail(Acquisition.closedClient());
			return;
		}
		if (this.cancelled) {
			giveUp();
			return;
		}
		long sent = System.nanoTime();
		if (!this.triedOnce) {
			this.triedOnce = true;
			this.grantFloor = sent;
		}
		long claim = (this.waiter == null) ? 0
				: this.attempt.kind().claimMillis(WaitingAcquirer.untilNextTryMillis(this.deadline - sent));
		CompletableFuture<ScriptExecutor.Pair> tried;
		try {
			tried = this.attempt.kind().tryAcquire(this.attempt, claim, this.waitId);
		}
		catch (RuntimeException ex) {
			tried = CompletableFuture.failedFuture(ex);
		}
		tried.whenComplete((reply, ex) -> {
			try {
				tried(reply, ex, claim, sent);
			}
			catch (RuntimeException failure) {
				fail(failure);
			}
		});
	}

	private void tried(ScriptExecutor.@Nullable Pair reply, @Nullable Throwable ex, long claim, long sent) {
		if (ex != null || reply == null) {
			failed(ScriptExecutor.unwrap(ex), claim);
			return;
		}
		// answered: this try ran, before any grant still to come for this wait (a try that runs after a grant to
		// its attempt finds the lock held by it, and acquires)
		this.grantFloor = sent;
		this.failures = 0;
		long result = reply.result();
		if (result == LockScripts.ACQUIRED) {
			succeed(new WaitingAcquirer.Acquired(sent, reply.token()));
			return;
		}
		if (result == LockScripts.UPGRADE) {
			fail(WaitingAcquirer.upgradeRefused(this.attempt.key()));
			return;
		}
		this.withdrawal.answered(claim > 0 && (result >= 0 || result == LockScripts.NO_TTL));
		long remaining = this.deadline - System.nanoTime();
		if (this.waiter == null || remaining <= 0 || this.cancelled) {
			giveUp();
			return;
		}
		// the holder's lease bounds the wait: a crashed holder publishes nothing
		long untilLeaseEnds = (result == LockScripts.NO_TTL) ? WaitingAcquirer.NO_TTL_RETRY_NANOS
				: TimeUnit.MILLISECONDS.toNanos(result + 1);
		if (!this.waitLogged && WaitLog.waits()) {
			logWait(remaining, result);
		}
		waitThenTry(Math.min(remaining, Math.min(untilLeaseEnds, WaitingAcquirer.RETRY_NANOS)));
	}

	/**
	 * A try's round trip failed. Its outcome is unknown when the failure is one a new try may get past (a
	 * dropped connection, a timeout): it may have run. Then the same attempt tries again after a pause, within
	 * the deadline; a script error, a single try or a passed deadline end the attempt.
	 */
	private void failed(RuntimeException failure, long claim) {
		boolean retriable = failure instanceof DistributedLockException && RedisFailures.isTransient(failure);
		if (retriable && !RedisFailures.ranNothing(failure)) {
			this.withdrawal.mayHaveRun(claim);
		}
		long remaining = this.deadline - System.nanoTime();
		if (!retriable || this.waiter == null || this.cancelled || remaining <= 0) {
			fail(failure);
			return;
		}
		long pause = TimeUnit.MILLISECONDS
			.toNanos(RETRY_PAUSES_MILLIS[Math.min(this.failures++, RETRY_PAUSES_MILLIS.length - 1)]);
		waitThenTry(Math.min(remaining, pause));
	}

	/** Waits for a signal (a release, a grant, {@link #cancel()}) or the time, then tries again. */
	private void waitThenTry(long nanos) {
		CompletableFuture<Void> woken = this.waiter.next(nanos, this.acquirer.timer);
		if (!woken.isDone()) {
			woken.whenComplete((done, failure) -> resumeAfterWait());
			return;
		}
		// woken already (a signal came during the try): the next try goes now, but not nested in this one's
		// stack, where a blocking client (Jedis) answered it; a try after each of thousands of signals would
		// overflow it. The step that started the run of immediate tries runs them one after another (a
		// trampoline); a step that finds one running hands it the next try and returns.
		if (this.immediateTries.getAndIncrement() != 0) {
			return;
		}
		do {
			afterWait();
		}
		while (this.immediateTries.decrementAndGet() != 0);
	}

	private void resumeAfterWait() {
		try {
			this.acquirer.resume.execute(this::afterWait);
		}
		catch (RejectedExecutionException ex) {
			fail(Acquisition.closedClient());
		}
	}

	private void afterWait() {
		try {
			NotificationWaiter granted = this.waiter;
			// granted after this wait's last answered try ran in Redis, so its lease counts from no earlier than
			// that try's sending (a later try that failed may not have run, and may have been sent after the
			// grant); if that was long ago, the next try finds the grant and confirms a full lease
			if (granted != null && granted.isGranted() && !this.cancelled && !this.acquirer.closed.get()
					&& System.nanoTime() - this.grantFloor < Hold.thirdOfLeaseNanos(this.attempt.leaseMillis())) {
				WaitLog.granted(this.attempt.key(), this.attempt.id().type(), this.attempt.owner(),
						granted.grantedToken());
				succeed(new WaitingAcquirer.Acquired(this.grantFloor, granted.grantedToken()));
				return;
			}
			tryLock();
		}
		catch (RuntimeException ex) {
			fail(ex);
		}
	}

	private void succeed(WaitingAcquirer.Acquired acquired) {
		unregister();
		this.result.complete(acquired);
	}

	/** Ends without the lock, withdrawing what its tries may have left in Redis first. */
	private void giveUp() {
		unregister();
		this.withdrawal.withdrawThen(this::withdraw, this.acquirer.background, () -> this.result.complete(null));
	}

	private void fail(RuntimeException failure) {
		unregister();
		this.withdrawal.withdrawThen(this::withdraw, this.acquirer.background,
				() -> this.result.completeExceptionally(failure));
	}

	/** Withdraws this attempt in Redis ({@link LockKind#withdraw}), when it ends without the lock. */
	private CompletableFuture<Void> withdraw(boolean outcomeUnknown) {
		return this.attempt.kind().withdraw(this.attempt, outcomeUnknown);
	}

	private void logWait(long remaining, long tryResult) {
		this.waitLogged = true;
		long since = System.nanoTime();
		String key = this.attempt.key();
		LockType type = this.attempt.id().type();
		String owner = this.attempt.owner();
		WaitLog.started(key, type, owner, remaining, tryResult);
		this.result.whenComplete((acquired, failure) -> WaitLog.ended(key, type, owner, since, acquired != null,
				failure, this.cancelled));
	}

	private void unregister() {
		if (this.waiter != null) {
			this.acquirer.notifications.unregister(this.waiter);
		}
		this.acquirer.ended(this);
	}

}
