package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.annotation.LockType;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * A semaphore: up to {@link #permits()} owners hold the key at once, each with its own lease (see
 * {@code sem_common.lua}); its waiters, of every instance, queue in Redis, first come, first served, and a release
 * grants the freed permit to the first of them. Thread-safe.
 */
final class SemaphoreKind implements LockKind {

	static final RedisScript<Long> ACQUIRE = LockScripts.load("notify.lua", "fence.lua", "sem_common.lua",
			"sem_acquire.lua");

	static final RedisScript<Long> RELEASE = LockScripts.load("notify.lua", "fence.lua", "sem_common.lua",
			"sem_release.lua");

	static final RedisScript<Long> RENEW = LockScripts.load("notify.lua", "fence.lua", "sem_common.lua",
			"sem_renew.lua");

	static final RedisScript<Long> KEEP = LockScripts.load("notify.lua", "fence.lua", "sem_common.lua",
			"sem_keep.lua");

	static final RedisScript<Long> CANCEL = LockScripts.load("notify.lua", "fence.lua", "sem_common.lua",
			"sem_cancel.lua");

	private final KindScripts with;

	private final int permits;

	/**
	 * @param with what the scripts run with
	 * @param permits the key's permit count, above 1
	 */
	SemaphoreKind(KindScripts with, int permits) {
		this.with = with;
		this.permits = permits;
	}

	/** {@inheritDoc} {@link LockType#REENTRANT}: a semaphore's owners re-enter their permit. */
	@Override
	public LockType type() {
		return LockType.REENTRANT;
	}

	@Override
	public int permits() {
		return this.permits;
	}

	@Override
	public boolean queuesLocally() {
		return false;
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
			.runPairAsync(ACQUIRE, redisKey, "acquire a permit of", key, owner, Long.toString(leaseMillis), reentering,
					Long.toString(claimMillis), Long.toString(waitId), Integer.toString(this.permits),
					this.with.channel(redisKey))
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

	@Override
	public CompletableFuture<Void> withdraw(Attempt attempt, boolean outcomeUnknown) {
		return this.with.withdraw(CANCEL, attempt, outcomeUnknown, null);
	}

}
