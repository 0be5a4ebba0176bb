package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * What the tries of one {@link RedisWait} may have left in Redis (a place in the queue, a claim, a grant, a hold
 * whose reply was lost), and its withdrawal when the wait ends without the lock. Written by one step of the wait
 * at a time.
 */
final class WaitLeftovers {

	/** Whether a try left a place or claim in Redis. */
	private boolean claimed;

	/**
	 * Whether a try's round trip failed: it may have run, and left a hold or a claim that the client never
	 * learnt of.
	 */
	private boolean outcomeUnknown;

	/**
	 * Records a try that Redis answered.
	 * @param claimed whether it left a place or claim in Redis
	 */
	void answered(boolean claimed) {
		this.claimed |= claimed;
	}

	/**
	 * Records a try whose round trip failed after it may have run: a place, a claim or a hold of this attempt may
	 * be in Redis now.
	 * @param claim the claim it asked for, in milliseconds (0 for none)
	 */
	void mayHaveRun(long claim) {
		this.outcomeUnknown = true;
		this.claimed |= claim > 0;
	}

	/**
	 * Withdraws what the attempt's tries may have left in Redis, then ends. After a try whose outcome is unknown
	 * the end does not wait for the withdrawal (Redis is slow to answer or unreachable: the caller's failure
	 * comes within one command timeout, not two); the withdrawal names this attempt only, so whenever it runs
	 * it frees nothing of a later attempt.
	 * @param withdraw withdraws the attempt in Redis, told whether a try's outcome is unknown
	 * ({@link LockKind#withdraw})
	 * @param background runs the withdrawal after a try whose outcome is unknown, off the failing thread
	 * @param end what ends the wait
	 */
	void withdrawThen(Function<Boolean, CompletableFuture<Void>> withdraw, Executor background, Runnable end) {
		if (!this.claimed && !this.outcomeUnknown) {
			end.run();
			return;
		}
		boolean unknown = this.outcomeUnknown;
		if (!unknown) {
			withdraw.apply(false).whenComplete((done, ex) -> end.run());
			return;
		}
		Runnable withdrawal = () -> withdraw.apply(true);
		try {
			background.execute(withdrawal);
		}
		catch (RejectedExecutionException ex) {
			// the client is closing: withdraw from here, before the connection factory goes
			withdrawal.run();
		}
		end.run();
	}

}
