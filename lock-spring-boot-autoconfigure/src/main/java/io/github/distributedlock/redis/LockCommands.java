package io.github.distributedlock.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Redis side of each lock operation, for every lock type: picks the type's script and its arguments, and
 * runs it with a {@link ScriptExecutor}, asynchronously; renewals are {@link LeaseRenewals}, withdrawals
 * {@link Withdrawals}. One round trip per call. Thread-safe.
 */
final class LockCommands {

	/**
	 * How long the readers waiting at a writer's release keep their place before the next writer
	 * (milliseconds): woken by the release, they normally enter within a round trip; an admission not used in
	 * time (a reader that died) then no longer holds writers up.
	 */
	private static final String ADMISSION_MILLIS = "1000";

	/**
	 * Holds to release at an owner's last release: more than it can have, so that a hold its client never
	 * learnt of (a re-entry whose round trip timed out after it ran in Redis) goes too.
	 */
	private static final String ALL_HOLDS = Integer.toString(Integer.MAX_VALUE);

	private final ScriptExecutor scripts;

	/** The release channel each script gets: one for all locks, or the sharded one of the lock's slot. */
	private final ReleaseChannels channels;

	private final Withdrawals withdrawals;

	private final LeaseRenewals renewals;

	LockCommands(ScriptExecutor scripts, ReleaseChannels channels) {
		this.scripts = scripts;
		this.channels = channels;
		this.withdrawals = new Withdrawals(scripts);
		this.renewals = new LeaseRenewals(scripts);
	}

	/**
	 * Tells whether the commands block the calling thread (see {@link ScriptTransport#isBlocking()}).
	 * @return {@code true} for a blocking client
	 */
	boolean isBlocking() {
		return this.scripts.isBlocking();
	}

	/**
	 * Tries to acquire or re-enter a lock, or a permit of a semaphore, once.
	 * @param permits the key's permit count: 1 for a lock, more for a semaphore
	 * @param owner the owner id of the acquisition attempt
	 * @param downgradeFrom for the read side: the owner id of the same owner's write hold (a downgrade), or
	 * {@code ""}
	 * @param claimMillis when blocked, how long to keep the owner's place or claim (0 for none)
	 * @param waitId the number of this wait, echoed by a grant (reentrant locks and semaphores)
	 * @return the script's result and fencing token (see {@link LockScripts}); failed with an
	 * {@link IllegalStateException} if the key is a lock of another kind or permit count, or with a
	 * {@link DistributedLockException} if Redis could not run it (the outcome is then unknown)
	 */
	CompletableFuture<ScriptExecutor.Pair> tryAcquire(LockType type, int permits, String key, String redisKey,
			String owner, String downgradeFrom, long leaseMillis, boolean reentry, long claimMillis, long waitId) {
		String lease = Long.toString(leaseMillis);
		String reentering = reentry ? "1" : "0";
		String claim = Long.toString(claimMillis);
		String channel = this.channels.of(redisKey);
		CompletableFuture<ScriptExecutor.Pair> result = (permits > 1)
				? this.scripts.runPairAsync(LockScripts.SEMAPHORE_ACQUIRE, redisKey, "acquire a permit of", key, owner,
						lease, reentering, claim, Long.toString(waitId), Integer.toString(permits), channel)
				: switch (type) {
					case REENTRANT -> this.scripts.runAcquireAsync(LockScripts.REENTRANT_ACQUIRE, redisKey, "acquire",
							key, owner, lease, reentering, claim, Long.toString(waitId));
					case READ -> this.scripts.runPairAsync(LockScripts.READ_ACQUIRE, redisKey, "acquire the read lock",
							key, owner, lease, reentering, claim, downgradeFrom);
					case WRITE -> this.scripts.runPairAsync(LockScripts.WRITE_ACQUIRE, redisKey,
							"acquire the write lock", key, owner, lease, reentering, claim);
				};
		return result.thenApply((tried) -> {
			if (tried.result() == LockScripts.WRONG_TYPE) {
				throw wrongType(type, permits, key, redisKey);
			}
			if (tried.result() == LockScripts.OTHER_PERMITS) {
				throw otherPermits(type, key, redisKey, permits, tried.token());
			}
			return tried;
		});
	}

	private static IllegalStateException wrongType(LockType type, int permits, String key, String redisKey) {
		String held = (type == LockType.REENTRANT) ? "a read/write lock (1 permit)" : "a reentrant lock (1 permit)";
		return new IllegalStateException("Cannot acquire lock '" + key + "' " + kind(type, permits) + ": its Redis key '"
				+ redisKey + "' is held as " + held + "; one key cannot be both at once, give each kind of lock keys of "
				+ "its own");
	}

	/**
	 * The refusal of a key used with another permit count than the one Redis records for it.
	 * @param type the type of the refused acquisition
	 * @param asked the count of the refused acquisition
	 * @param stored the key's count in Redis: 1 for a reentrant lock
	 */
	static IllegalStateException otherPermits(LockType type, String key, String redisKey, int asked, long stored) {
		return new IllegalStateException("Cannot acquire lock '" + key + "' " + kind(type, asked) + ": its Redis key '"
				+ redisKey + "' is held " + kind(LockType.REENTRANT, stored) + "; one key is one kind: use it with "
				+ "the same permit count everywhere (" + asked + " here, " + stored + " in Redis), or give each use a "
				+ "key of its own");
	}

	private static String kind(LockType type, long permits) {
		return (permits > 1) ? "as a semaphore with " + permits + " permits"
				: (type == LockType.REENTRANT) ? "as a reentrant lock (1 permit)" : "as a read/write lock (1 permit)";
	}

	/**
	 * Releases all of a hold's holds in Redis; the last release of a reentrant lock hands it to {@code next}, a
	 * reserved local waiter, if given (see {@code reentrant_release.lua}), and then returns its fencing token.
	 * @return the script's result and token; failed with a {@link DistributedLockException} if Redis could not
	 * run it
	 */
	CompletableFuture<ScriptExecutor.Pair> release(Hold hold, @Nullable LocalWaiter next) {
		String key = hold.id.key();
		String channel = this.channels.of(hold.redisKey);
		if (hold.permits > 1) {
			return this.scripts.runAsync(LockScripts.SEMAPHORE_RELEASE, hold.redisKey, "release", key, hold.owner,
					channel, ALL_HOLDS).thenApply(LockCommands::withoutToken);
		}
		return switch (hold.id.type()) {
			// without a thread to hand over to, the script answers one integer, not a pair (see the script)
			case REENTRANT -> (next == null)
					? this.scripts.runAsync(LockScripts.REENTRANT_RELEASE, hold.redisKey, "release", key,
							hold.owner, channel, ALL_HOLDS).thenApply(LockCommands::withoutToken)
					: this.scripts.runPairAsync(LockScripts.REENTRANT_RELEASE, hold.redisKey, "release", key,
							hold.owner, channel, ALL_HOLDS, next.owner, Long.toString(next.leaseMillis));
			case READ -> this.scripts.runAsync(LockScripts.READ_RELEASE, hold.redisKey, "release", key, hold.owner,
					channel, ALL_HOLDS).thenApply(LockCommands::withoutToken);
			case WRITE -> this.scripts.runAsync(LockScripts.WRITE_RELEASE, hold.redisKey, "release", key, hold.owner,
					channel, ALL_HOLDS, ADMISSION_MILLIS).thenApply(LockCommands::withoutToken);
		};
	}

	private static ScriptExecutor.Pair withoutToken(long result) {
		return new ScriptExecutor.Pair(result, 0);
	}

	/**
	 * Drops the owner but keeps the lock taken, by nobody, for {@code keepMillis} (the rest of a minimum hold).
	 * @return 0 when done, -1 when the owner held nothing; failed with a {@link DistributedLockException} if
	 * Redis could not run it
	 */
	CompletableFuture<Long> keep(Hold hold, long keepMillis) {
		RedisScript<Long> script = (hold.permits > 1) ? LockScripts.SEMAPHORE_KEEP : switch (hold.id.type()) {
			case REENTRANT -> LockScripts.REENTRANT_KEEP;
			case READ -> LockScripts.READ_KEEP;
			case WRITE -> LockScripts.WRITE_KEEP;
		};
		return this.scripts.runAsync(script, hold.redisKey, "release", hold.id.key(), hold.owner,
				Long.toString(keepMillis));
	}

	/**
	 * Extends a hold's lease to its full length (see {@link LeaseRenewals#renew}).
	 * @return 1 when extended, 0 when the owner no longer holds the lock; failed with a
	 * {@link DistributedLockException} if Redis could not run it
	 */
	CompletableFuture<Long> renew(Hold hold) {
		return this.renewals.renew(hold);
	}

	/**
	 * Extends several holds' leases in one round trip (see {@link LeaseRenewals#renewAll}).
	 * @return for each hold, in order, a future of its outcome, which completes when that hold's reply came
	 * (never exceptionally)
	 */
	List<CompletableFuture<ScriptExecutor.Outcome>> renewAll(List<Hold> holds) {
		return this.renewals.renewAll(holds);
	}

	/**
	 * Withdraws what a waiter that gives up left in Redis: its place or claim, and a grant it did not hear of.
	 * After a try whose outcome is unknown (its round trip failed, yet may have run in Redis), also a hold it
	 * may have been given: the owner holds nothing of this lock as far as its client knows, so whatever Redis
	 * records for it would otherwise stay, owned by nobody, until its lease ends. Failures are logged: a place
	 * or claim expires by itself within seconds, a hold with its lease.
	 * @return completes when the withdrawal ended, however; never fails
	 */
	CompletableFuture<Void> withdraw(LockType type, int permits, String key, String redisKey, String owner,
			boolean outcomeUnknown) {
		// the cancel script also passes on a hold the owner has in Redis: a grant, or its own try's
		RedisScript<Long> cancel = (permits > 1) ? LockScripts.SEMAPHORE_CANCEL : switch (type) {
			case REENTRANT -> LockScripts.REENTRANT_CANCEL;
			case READ -> LockScripts.READ_CANCEL;
			case WRITE -> LockScripts.WRITE_CANCEL;
		};
		String channel = this.channels.of(redisKey);
		CompletableFuture<Void> cancelled = runWithdrawal(cancel, outcomeUnknown, redisKey, key, owner, channel);
		// sent right after the cancel, not after its reply: on the same connection, it runs after it, even when
		// the cancel's reply does not come in time
		if (outcomeUnknown && type == LockType.READ && permits == 1) {
			return CompletableFuture.allOf(cancelled,
					runWithdrawal(LockScripts.READ_RELEASE, true, redisKey, key, owner, channel, ALL_HOLDS));
		}
		if (outcomeUnknown && type == LockType.WRITE && permits == 1) {
			return CompletableFuture.allOf(cancelled, runWithdrawal(LockScripts.WRITE_RELEASE, true, redisKey, key,
					owner, channel, ALL_HOLDS, ADMISSION_MILLIS));
		}
		return cancelled;
	}

	private CompletableFuture<Void> runWithdrawal(RedisScript<Long> script, boolean outcomeUnknown, String redisKey,
			String key, String... args) {
		return this.withdrawals.run(script, outcomeUnknown, redisKey, key, args);
	}

}
