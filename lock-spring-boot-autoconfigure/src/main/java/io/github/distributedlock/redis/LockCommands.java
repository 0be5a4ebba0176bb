package io.github.distributedlock.redis;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.redis.LocalQueue.Waiter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Redis side of each lock operation, for every lock type: picks the type's script and its arguments, and
 * runs it with a {@link ScriptExecutor}. One round trip per call. Thread-safe.
 */
final class LockCommands {

	private static final Log logger = LogFactory.getLog(LockCommands.class);

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

	private final String channel;

	LockCommands(ScriptExecutor scripts, String channel) {
		this.scripts = scripts;
		this.channel = channel;
	}

	/**
	 * Tries to acquire or re-enter a lock once.
	 * @param claimMillis when blocked, how long to keep the owner's place or claim (0 for none)
	 * @param waitId the number of this wait, echoed by a grant (reentrant locks)
	 * @return the script's result and fencing token (see {@link LockScripts})
	 * @throws IllegalStateException if the key is a lock of the other kind (reentrant vs read/write)
	 * @throws DistributedLockException if Redis could not run it; the outcome is then unknown
	 */
	ScriptExecutor.Pair tryAcquire(LockType type, String key, String redisKey, String owner, long leaseMillis,
			boolean reentry, long claimMillis, long waitId) {
		String lease = Long.toString(leaseMillis);
		String reentering = reentry ? "1" : "0";
		String claim = Long.toString(claimMillis);
		ScriptExecutor.Pair result = switch (type) {
			case REENTRANT -> this.scripts.runPair(LockScripts.REENTRANT_ACQUIRE, redisKey, "acquire", key, owner,
					lease, reentering, claim, Long.toString(waitId));
			case READ -> this.scripts.runPair(LockScripts.READ_ACQUIRE, redisKey, "acquire the read lock", key, owner,
					lease, reentering, claim);
			case WRITE -> this.scripts.runPair(LockScripts.WRITE_ACQUIRE, redisKey, "acquire the write lock", key,
					owner, lease, reentering, claim);
		};
		if (result.result() == LockScripts.WRONG_TYPE) {
			throw new IllegalStateException("Cannot acquire lock '" + key + "' as a "
					+ ((type == LockType.REENTRANT) ? "reentrant lock: its Redis key '" + redisKey
							+ "' is held as a read/write lock"
							: "read/write lock: its Redis key '" + redisKey + "' is held as a reentrant lock")
					+ "; one key cannot be both at once, give each kind of lock keys of its own");
		}
		return result;
	}

	/**
	 * Releases all of a hold's holds in Redis; the last release of a reentrant lock hands it to {@code next}, a
	 * reserved local waiter, if given (see {@code reentrant_release.lua}), and then returns its fencing token.
	 * @throws DistributedLockException if Redis could not run it
	 */
	ScriptExecutor.Pair release(Hold hold, @Nullable Waiter next) {
		String key = hold.id.key();
		return switch (hold.id.type()) {
			case REENTRANT -> (next == null)
					? this.scripts.runPair(LockScripts.REENTRANT_RELEASE, hold.redisKey, "release", key, hold.owner,
							this.channel, ALL_HOLDS)
					: this.scripts.runPair(LockScripts.REENTRANT_RELEASE, hold.redisKey, "release", key, hold.owner,
							this.channel, ALL_HOLDS, next.owner, Long.toString(next.leaseMillis));
			case READ -> new ScriptExecutor.Pair(releaseReadWrite(LockType.READ, key, hold.redisKey, hold.owner), 0);
			case WRITE -> new ScriptExecutor.Pair(releaseReadWrite(LockType.WRITE, key, hold.redisKey, hold.owner), 0);
		};
	}

	private long releaseReadWrite(LockType type, String key, String redisKey, String owner) {
		return (type == LockType.READ)
				? this.scripts.run(LockScripts.READ_RELEASE, redisKey, "release", key, owner, this.channel, ALL_HOLDS)
				: this.scripts.run(LockScripts.WRITE_RELEASE, redisKey, "release", key, owner, this.channel, ALL_HOLDS,
						ADMISSION_MILLIS);
	}

	/**
	 * Drops the owner but keeps the lock taken, by nobody, for {@code keepMillis} (the rest of a minimum hold).
	 * @return 0 when done, -1 when the owner held nothing
	 * @throws DistributedLockException if Redis could not run it
	 */
	long keep(Hold hold, long keepMillis) {
		RedisScript<Long> script = switch (hold.id.type()) {
			case REENTRANT -> LockScripts.REENTRANT_KEEP;
			case READ -> LockScripts.READ_KEEP;
			case WRITE -> LockScripts.WRITE_KEEP;
		};
		return this.scripts.run(script, hold.redisKey, "release", hold.id.key(), hold.owner, Long.toString(keepMillis));
	}

	/**
	 * Extends a hold's lease to its full length (never shortens it).
	 * @return 1 when extended, 0 when the owner no longer holds the lock
	 * @throws DistributedLockException if Redis could not run it
	 */
	long renew(Hold hold) {
		return this.scripts.run(renewScript(hold), hold.redisKey, "renew", hold.id.key(), hold.owner,
				Long.toString(hold.leaseMillis));
	}

	/**
	 * Extends several holds' leases in one pipeline: one round trip however many locks are due.
	 * @return for each hold, in order, 1 when extended, 0 when no longer held, or the failure; never throws
	 */
	List<ScriptExecutor.Outcome> renewAll(List<Hold> holds) {
		List<ScriptExecutor.Call> calls = new ArrayList<>(holds.size());
		for (Hold hold : holds) {
			calls.add(new ScriptExecutor.Call(renewScript(hold), hold.redisKey, "renew", hold.id.key(), hold.owner,
					Long.toString(hold.leaseMillis)));
		}
		return this.scripts.runAll(calls);
	}

	private static RedisScript<Long> renewScript(Hold hold) {
		return switch (hold.id.type()) {
			case REENTRANT -> LockScripts.REENTRANT_RENEW;
			case READ -> LockScripts.READ_RENEW;
			case WRITE -> LockScripts.WRITE_RENEW;
		};
	}

	/**
	 * Withdraws what a waiter that gives up left in Redis: its place or claim, and a grant it did not hear of.
	 * After a try whose outcome is unknown (its round trip failed, yet may have run in Redis), also a hold it
	 * may have been given: the owner holds nothing of this lock as far as its client knows, so whatever Redis
	 * records for it would otherwise stay, owned by nobody, until its lease ends. Failures are logged: a place
	 * or claim expires by itself within seconds, a hold with its lease.
	 */
	void withdraw(LockType type, String key, String redisKey, String owner, boolean outcomeUnknown) {
		// the cancel script also passes on a hold the owner has in Redis: a grant, or its own try's
		RedisScript<Long> cancel = switch (type) {
			case REENTRANT -> LockScripts.REENTRANT_CANCEL;
			case READ -> LockScripts.READ_CANCEL;
			case WRITE -> LockScripts.WRITE_CANCEL;
		};
		runWithdrawal(cancel, outcomeUnknown, redisKey, key, owner, this.channel);
		// sent even when the cancel's reply did not come in time: on the same connection, it runs after it
		if (outcomeUnknown && type == LockType.READ) {
			runWithdrawal(LockScripts.READ_RELEASE, true, redisKey, key, owner, this.channel, ALL_HOLDS);
		}
		else if (outcomeUnknown && type == LockType.WRITE) {
			runWithdrawal(LockScripts.WRITE_RELEASE, true, redisKey, key, owner, this.channel, ALL_HOLDS,
					ADMISSION_MILLIS);
		}
	}

	/**
	 * Runs a withdrawal; after an unknown outcome Redis may be slow to answer, so by its text: it then runs
	 * after the try it cleans up after, even if its own reply comes too late.
	 */
	private void runWithdrawal(RedisScript<Long> script, boolean outcomeUnknown, String redisKey, String key,
			String... args) {
		try {
			if (outcomeUnknown) {
				this.scripts.runText(script, redisKey, "withdraw the waiting claim on", key, args);
			}
			else {
				this.scripts.run(script, redisKey, "withdraw the waiting claim on", key, args);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not withdraw the waiting claim on lock '" + key + "'"
					+ (outcomeUnknown ? " (Redis may still run it); if the failed try acquired it, it ends with its lease"
							: ""), ex);
		}
	}

}
