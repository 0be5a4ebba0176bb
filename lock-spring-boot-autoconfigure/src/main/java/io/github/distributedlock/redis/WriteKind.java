package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The write side of a read/write lock: one writer excludes everyone (see {@code rw_common.lua}); a waiting writer's
 * claim makes new readers wait behind it, and its release admits the readers that waited meanwhile before the next
 * writer (phase-fair). The owners of one client queue locally for it, as for a reentrant lock. Thread-safe.
 */
final class WriteKind implements LockKind {

	static final RedisScript<Long> ACQUIRE = LockScripts.load("notify.lua", "fence.lua", "rw_common.lua",
			"write_acquire.lua");

	static final RedisScript<Long> RELEASE = LockScripts.load("notify.lua", "rw_common.lua", "write_release.lua");

	static final RedisScript<Long> RENEW = LockScripts.load("notify.lua", "rw_common.lua", "write_renew.lua");

	static final RedisScript<Long> CANCEL = LockScripts.load("notify.lua", "rw_common.lua", "write_cancel.lua");

	static final RedisScript<Long> KEEP = LockScripts.load("notify.lua", "rw_common.lua", "write_keep.lua");

	/**
	 * How long the readers waiting at a writer's release keep their place before the next writer (milliseconds):
	 * woken by the release, they normally enter within a round trip; an admission not used in time (a reader that
	 * died) then no longer holds writers up.
	 */
	private static final String ADMISSION_MILLIS = "1000";

	private final KindScripts with;

	WriteKind(KindScripts with) {
		this.with = with;
	}

	@Override
	public LockType type() {
		return LockType.WRITE;
	}

	@Override
	public boolean queuesLocally() {
		return true;
	}

	@Override
	public long claimMillis(long untilNextTryMillis) {
		return untilNextTryMillis + CLAIM_SLACK_MILLIS;
	}

	@Override
	public CompletableFuture<ScriptExecutor.Pair> tryAcquire(Attempt attempt, long claimMillis, long waitId) {
		return acquire(attempt.redisKey(), attempt.key(), attempt.owner(), attempt.leaseMillis(), "0", claimMillis);
	}

	@Override
	public CompletableFuture<ScriptExecutor.Pair> reenter(Hold hold, long leaseMillis) {
		return acquire(hold.redisKey(), hold.key(), hold.owner(), leaseMillis, "1", 0);
	}

	private CompletableFuture<ScriptExecutor.Pair> acquire(String redisKey, String key, String owner, long leaseMillis,
			String reentering, long claimMillis) {
		return this.with.scripts()
			.runPairAsync(ACQUIRE, redisKey, "acquire the write lock", key, owner, Long.toString(leaseMillis),
					reentering, Long.toString(claimMillis))
			.thenApply((tried) -> LockKind.sameKind(this, key, redisKey, tried));
	}

	@Override
	public CompletableFuture<ScriptExecutor.Pair> release(Hold hold, LocalQueue.@Nullable Waiter next) {
		return this.with.release(RELEASE, hold, ADMISSION_MILLIS);
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
		return this.with.withdraw(CANCEL, attempt, outcomeUnknown, RELEASE, ADMISSION_MILLIS);
	}

}
