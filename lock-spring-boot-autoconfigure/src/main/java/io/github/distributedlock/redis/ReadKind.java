package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The read side of a read/write lock: readers share the hash, each with its own lease (see {@code rw_common.lua});
 * a reader waits in Redis behind a waiting writer's claim, and announces its own wait with a claim that the next
 * writer's release admits. Thread-safe.
 */
final class ReadKind implements LockKind {

	static final RedisScript<Long> ACQUIRE = LockScripts.load("notify.lua", "fence.lua", "rw_common.lua",
			"read_acquire.lua");

	static final RedisScript<Long> RELEASE = LockScripts.load("notify.lua", "rw_common.lua", "read_release.lua");

	static final RedisScript<Long> RENEW = LockScripts.load("notify.lua", "rw_common.lua", "read_renew.lua");

	static final RedisScript<Long> CANCEL = LockScripts.load("notify.lua", "rw_common.lua", "read_cancel.lua");

	static final RedisScript<Long> KEEP = LockScripts.load("notify.lua", "rw_common.lua", "read_keep.lua");

	private final KindScripts with;

	ReadKind(KindScripts with) {
		this.with = with;
	}

	@Override
	public LockType type() {
		return LockType.READ;
	}

	@Override
	public boolean queuesLocally() {
		return false;
	}

	@Override
	public long claimMillis(long untilNextTryMillis) {
		return untilNextTryMillis + CLAIM_SLACK_MILLIS;
	}

	/** {@inheritDoc} An owner that holds the write side reads without waiting (a downgrade). */
	@Override
	public CompletableFuture<ScriptExecutor.Pair> tryAcquire(Attempt attempt, long claimMillis, long waitId) {
		return acquire(attempt.redisKey(), attempt.key(), attempt.owner(), attempt.leaseMillis(), "0", claimMillis,
				attempt.downgradeFrom());
	}

	@Override
	public CompletableFuture<ScriptExecutor.Pair> reenter(Hold hold, long leaseMillis) {
		return acquire(hold.redisKey(), hold.key(), hold.owner(), leaseMillis, "1", 0, "");
	}

	private CompletableFuture<ScriptExecutor.Pair> acquire(String redisKey, String key, String owner, long leaseMillis,
			String reentering, long claimMillis, String downgradeFrom) {
		return this.with.scripts()
			.runPairAsync(ACQUIRE, redisKey, "acquire the read lock", key, owner, Long.toString(leaseMillis),
					reentering, Long.toString(claimMillis), downgradeFrom)
			.thenApply((tried) -> LockKind.sameKind(this, key, redisKey, tried));
	}

	@Override
	public CompletableFuture<ScriptExecutor.Pair> release(Hold hold, LocalQueue.@Nullable Waiter next) {
		return this.with.release(RELEASE, hold);
	}

	@Override
	public CompletableFuture<Long> keep(Hold hold, long keepMillis) {
		return this.with.keep(KEEP, hold, keepMillis);
	}

	@Override
	public RedisScript<Long> renewal() {
		return RENEW;
	}

	/** {@inheritDoc} After an unknown outcome the release follows the cancel (see {@link KindScripts#withdraw}). */
	@Override
	public CompletableFuture<Void> withdraw(Attempt attempt, boolean outcomeUnknown) {
		return this.with.withdraw(CANCEL, attempt, outcomeUnknown, RELEASE);
	}

}
