package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * A reentrant lock: one Redis hash whose field is the holder's owner id (see {@code reentrant_common.lua}); the
 * instances waiting for it queue in the hash, and a release grants it to the first of them, or hands it to a
 * local waiter of the releasing client in the same round trip. Thread-safe.
 */
final class ReentrantKind implements LockKind {

	/**
	 * Answers a re-entry and a free lock before the shared functions are made (see its head's file); an
	 * acquisition with the token alone.
	 */
	static final RedisScript<Long> ACQUIRE = LockScripts.load("reentrant_acquire_head.lua", "fence.lua", "notify.lua",
			"reentrant_common.lua", "reentrant_acquire.lua");

	/** Answers a release that leaves holds, and an uncontended last one, before the shared functions are made. */
	static final RedisScript<Long> RELEASE = LockScripts.load("reentrant_release_head.lua", "notify.lua", "fence.lua",
			"reentrant_common.lua", "reentrant_release.lua");

	static final RedisScript<Long> CANCEL = LockScripts.load("notify.lua", "fence.lua", "reentrant_common.lua",
			"reentrant_cancel.lua");

	static final RedisScript<Long> RENEW = LockScripts.load("reentrant_renew.lua");

	static final RedisScript<Long> KEEP = LockScripts.load("reentrant_keep.lua");

	private final KindScripts with;

	ReentrantKind(KindScripts with) {
		this.with = with;
	}

	@Override
	public LockType type() {
		return LockType.REENTRANT;
	}

	@Override
	public boolean queuesLocally() {
		return true;
	}

	@Override
	public boolean handsOverLocally() {
		return true;
	}

	@Override
	public CompletableFuture<ScriptExecutor.Pair> tryAcquire(Attempt attempt, long claimMillis, long waitId) {
		return acquire(attempt.redisKey(), attempt.key(), attempt.owner(), attempt.leaseMillis(), "0", claimMillis,
				waitId);
	}

	@Override
	public CompletableFuture<ScriptExecutor.Pair> reenter(Hold hold, long leaseMillis) {
		return acquire(hold.redisKey(), hold.key(), hold.owner(), leaseMillis, "1", 0, 0);
	}

	private CompletableFuture<ScriptExecutor.Pair> acquire(String redisKey, String key, String owner, long leaseMillis,
			String reentering, long claimMillis, long waitId) {
		return this.with.scripts()
			.runAcquireAsync(ACQUIRE, redisKey, "acquire", key, owner, Long.toString(leaseMillis), reentering,
					Long.toString(claimMillis), Long.toString(waitId))
			.thenApply((tried) -> LockKind.sameKind(this, key, redisKey, tried));
	}

	/**
	 * {@inheritDoc} Without a waiter to hand over to, the script answers one integer, not a pair (see the script).
	 */
	@Override
	public CompletableFuture<ScriptExecutor.Pair> release(Hold hold, LocalQueue.@Nullable Waiter next) {
		if (next == null) {
			return this.with.release(RELEASE, hold);
		}
		return this.with.scripts().runPairAsync(RELEASE, hold.redisKey(), "release", hold.key(), hold.owner(),
				this.with.channel(hold.redisKey()), ALL_HOLDS, next.owner(), Long.toString(next.leaseMillis()));
	}

	@Override
	public CompletableFuture<Long> keep(Hold hold, long keepMillis) {
		return this.with.keep(KEEP, hold, keepMillis);
	}

	@Override
	public RedisScript<Long> renewal() {
		return RENEW;
	}

	@Override
	public boolean renewsInBatches() {
		return true;
	}

	/** {@inheritDoc} The cancel script also passes on a hold the owner has in Redis: a grant, or its own try's. */
	@Override
	public CompletableFuture<Void> withdraw(Attempt attempt, boolean outcomeUnknown) {
		return this.with.withdraw(CANCEL, attempt, outcomeUnknown, null);
	}

}
