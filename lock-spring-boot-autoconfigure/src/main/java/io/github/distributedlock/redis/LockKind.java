package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * One kind of lock in Redis, with the scripts that act on it and their arguments: a reentrant lock
 * ({@link ReentrantKind}), the read or the write side of a read/write lock ({@link ReadKind}, {@link WriteKind}),
 * or a semaphore ({@link SemaphoreKind}). Every operation on a lock asks its kind, so no switch on the kind is
 * repeated elsewhere. A kind is bound to one client's {@link ScriptExecutor} and release channels
 * ({@link LockKinds}); one round trip per call, sent asynchronously. Thread-safe.
 */
sealed interface LockKind permits ReentrantKind, ReadKind, WriteKind, SemaphoreKind {

	/**
	 * Holds to release at an owner's last release: more than it can have, so that a hold its client never learnt
	 * of (a re-entry whose round trip timed out after it ran in Redis) goes too.
	 */
	String ALL_HOLDS = Integer.toString(Integer.MAX_VALUE);

	/**
	 * How long (milliseconds) a read/write claim outlives the wait it announced, for the waiter's round trips and
	 * pauses; the reentrant script adds the same slack to its queue entries ({@code RL_ENTRY_SLACK}).
	 */
	long CLAIM_SLACK_MILLIS = 2000;

	/** The lock type the caller asked for ({@link LockType#REENTRANT} for a semaphore). */
	LockType type();

	/** The key's permit count: 1 for a lock, more for a semaphore. */
	default int permits() {
		return 1;
	}

	/**
	 * The kind's name, as the meters, the events, the endpoint and the replica-sync script call it:
	 * {@code reentrant}, {@code read}, {@code write} or {@code semaphore}.
	 */
	default String name() {
		return type().nameWith(permits());
	}

	/**
	 * Whether the owners of one client that want this lock queue in a {@link LocalQueue}, so that only the first
	 * of them talks to Redis: the exclusive kinds. Readers and a semaphore's owners each wait in Redis.
	 */
	boolean queuesLocally();

	/**
	 * Whether the last release of a holder at the head of its {@link LocalQueue} hands the lock to the next local
	 * waiter in the same round trip (see {@link #release}): a reentrant lock's.
	 */
	default boolean handsOverLocally() {
		return false;
	}

	/**
	 * How long a blocked try keeps the waiter's place or claim in Redis.
	 * @param untilNextTryMillis until its next try, in milliseconds
	 * @return milliseconds: until the next try, where no slack is needed
	 */
	default long claimMillis(long untilNextTryMillis) {
		return untilNextTryMillis;
	}

	/**
	 * Tries to acquire the lock, or a permit, once for an attempt.
	 * @param attempt the attempt
	 * @param claimMillis when blocked, how long to keep the owner's place or claim (0 for none: a single try)
	 * @param waitId the number of this wait, echoed by a grant (reentrant locks and semaphores)
	 * @return the script's result and fencing token (see {@link LockScripts}); failed with an
	 * {@link IllegalStateException} if the key is a lock of another kind or permit count, or with a
	 * {@link DistributedLockException} if Redis could not run it (the outcome is then unknown)
	 */
	CompletableFuture<ScriptExecutor.Pair> tryAcquire(Attempt attempt, long claimMillis, long waitId);

	/**
	 * Re-enters a hold in Redis, extending its lease to {@code leaseMillis} if that is longer.
	 * @return the script's result ({@link LockScripts#ACQUIRED}, or {@link LockScripts#LOST} when the hold is
	 * gone); failed as {@link #tryAcquire}
	 */
	CompletableFuture<ScriptExecutor.Pair> reenter(Hold hold, long leaseMillis);

	/**
	 * Releases all of a hold's holds in Redis.
	 * @param next for a reentrant lock, a reserved local waiter to hand the lock to in the same round trip, or
	 * {@code null}
	 * @return the script's result ({@link LockScripts#NOT_HELD}, {@link LockScripts#HANDED_OVER} and the new
	 * token, or 0 and up); failed with a {@link DistributedLockException} if Redis could not run it
	 */
	CompletableFuture<ScriptExecutor.Pair> release(Hold hold, LocalQueue.@Nullable Waiter next);

	/**
	 * Drops the owner but keeps the lock taken, by nobody, for {@code keepMillis} (the rest of a minimum hold).
	 * @return 0 when done, {@link LockScripts#NOT_HELD} when the owner held nothing; failed with a
	 * {@link DistributedLockException} if Redis could not run it
	 */
	CompletableFuture<Long> keep(Hold hold, long keepMillis);

	/**
	 * The script that extends one hold's lease to its full length (never shortening it); its arguments are the
	 * owner id and the lease in milliseconds. It returns 1 when extended, 0 when the owner no longer holds the lock.
	 */
	RedisScript<Long> renewal();

	/**
	 * Whether the watchdog renews many holds of this kind with one script ({@code reentrant_renew_all.lua}).
	 */
	default boolean renewsInBatches() {
		return false;
	}

	/**
	 * Withdraws what an attempt that gives up left in Redis: its place or claim, and a grant it did not hear of.
	 * After a try whose outcome is unknown (its round trip failed, yet may have run in Redis), also a hold it may
	 * have been given: the owner holds nothing of this lock as far as its client knows, so whatever Redis records
	 * for it would otherwise stay, owned by nobody, until its lease ends. Failures are logged: a place or claim
	 * expires by itself within seconds, a hold with its lease.
	 * @return completes when the withdrawal ended, however; never fails
	 */
	CompletableFuture<Void> withdraw(Attempt attempt, boolean outcomeUnknown);

	/**
	 * Reads what an acquire script answered: a key held as another kind of lock, or with another permit count,
	 * is refused.
	 * @param kind the kind that asked
	 * @param key the lock key
	 * @param redisKey its Redis key
	 * @param tried the answer
	 * @return the answer
	 * @throws IllegalStateException for a key of another kind or permit count
	 */
	static ScriptExecutor.Pair sameKind(LockKind kind, String key, String redisKey, ScriptExecutor.Pair tried) {
		if (tried.result() == LockScripts.WRONG_TYPE) {
			String held = (kind.type() == LockType.REENTRANT) ? "a read/write lock (1 permit)"
					: "a reentrant lock (1 permit)";
			throw new IllegalStateException("Cannot acquire lock '" + key + "' " + describe(kind.type(),
					kind.permits()) + ": its Redis key '" + redisKey + "' is held as " + held
					+ "; one key cannot be both at once, give each kind of lock keys of its own");
		}
		if (tried.result() == LockScripts.OTHER_PERMITS) {
			throw otherPermits(kind, key, redisKey, tried.token());
		}
		return tried;
	}

	/**
	 * The refusal of a key used with another permit count than the one Redis (or this client's hold) records for
	 * it.
	 * @param kind the kind of the refused acquisition
	 * @param stored the key's count in Redis: 1 for a reentrant lock
	 */
	static IllegalStateException otherPermits(LockKind kind, String key, String redisKey, long stored) {
		return new IllegalStateException("Cannot acquire lock '" + key + "' " + describe(kind.type(), kind.permits())
				+ ": its Redis key '" + redisKey + "' is held " + describe(LockType.REENTRANT, stored)
				+ "; one key is one kind: use it with the same permit count everywhere (" + kind.permits() + " here, "
				+ stored + " in Redis), or give each use a key of its own");
	}

	private static String describe(LockType type, long permits) {
		return (permits > 1) ? "as a semaphore with " + permits + " permits"
				: (type == LockType.REENTRANT) ? "as a reentrant lock (1 permit)" : "as a read/write lock (1 permit)";
	}

}
