package io.github.distributedlock.core;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockLoss;
import org.jspecify.annotations.Nullable;

/**
 * The checks of a {@link LockRequest} and the wording of its refusals: its values (with the checks it shares
 * with {@link LockDefinition}, {@link LockValueChecks}) and who may own it. A request is made for every
 * acquisition, so each message is built only for a value that is refused. Stateless.
 */
final class LockRequestChecks {

	private LockRequestChecks() {
	}

	/**
	 * Checks the values of a request, as {@link LockRequest#LockRequest} documents.
	 * @throws NullPointerException if a value that must be set is {@code null}
	 * @throws IllegalArgumentException if a value is out of range; the message names the key
	 */
	static void check(String key, LockType type, int permits, Duration lease, boolean autoRenew,
			Duration holdAtLeast, OnLockLoss onLost, @Nullable Duration timeout, long owner, boolean releasedByThread) {
		Objects.requireNonNull(key, "key must not be null");
		Objects.requireNonNull(type, "type must not be null");
		Objects.requireNonNull(lease, "lease must not be null");
		Objects.requireNonNull(holdAtLeast, "holdAtLeast must not be null");
		Objects.requireNonNull(onLost, "onLost must not be null");
		if (!LockValueChecks.isUsableLease(lease, autoRenew)) {
			LockValueChecks.lease(lease, autoRenew, "lease of lock '" + key + "'");
		}
		if (permits != 1) {
			LockValueChecks.permits(permits, type, "lock '" + key + "'");
		}
		LockValueChecks.notNegative(holdAtLeast, "Minimum hold (holdAtLeast)", key);
		LockValueChecks.notNegative(timeout, "Timeout", key);
		if (owner > 0 || (owner < 0 && releasedByThread)) {
			throw new IllegalArgumentException("The owner of lock '" + key + "' must be CALLING_THREAD or one from "
					+ "newAsyncOwner() (negative), and only the calling thread releases by thread, was " + owner
					+ (releasedByThread ? " released by thread" : ""));
		}
	}

	/**
	 * Words the refusal of an asynchronous acquisition whose owner is the calling thread.
	 * @param key the lock key
	 * @return the exception to throw
	 */
	static IllegalArgumentException notAsync(String key) {
		return new IllegalArgumentException("Lock '" + key + "': an asynchronous acquisition needs an owner "
				+ "from newAsyncOwner(), not the calling thread");
	}

	/**
	 * Words the refusal of a blocking acquisition whose owner is not the calling thread.
	 * @param key the lock key
	 * @param owner the request's owner
	 * @return the exception to throw
	 */
	static IllegalArgumentException notCallingThread(String key, long owner) {
		return new IllegalArgumentException("Lock '" + key + "': owner " + owner
				+ " is not the calling thread; acquireAsync acquires for it");
	}

}
