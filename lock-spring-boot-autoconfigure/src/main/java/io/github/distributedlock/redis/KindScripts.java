package io.github.distributedlock.redis;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * What the {@link LockKind}s of one client run their scripts with: its script executor, its release channels (a
 * script that may wake waiters publishes on the key's channel), and its withdrawal sender; and the calls whose
 * argument layout every kind shares (keep, release, withdraw), each given the kind's own script.
 *
 * @param scripts runs the scripts
 * @param channels the release channel of each key, in the client's notification mode
 * @param withdrawals sends withdrawals, again a few times if they fail
 */
record KindScripts(ScriptExecutor scripts, NotificationChannels channels, WithdrawalSender withdrawals) {

	/** The release channel a script on {@code redisKey} publishes on. */
	String channel(String redisKey) {
		return this.channels.of(redisKey);
	}

	/**
	 * Drops a hold's owner but keeps the lock taken by nobody: {@code KEYS[1]} the lock, {@code ARGV} the owner id
	 * and what is left of the minimum hold in milliseconds.
	 * @param script the kind's keep script
	 * @return 0 when done, {@link LockScripts#NOT_HELD} when the owner held nothing
	 */
	CompletableFuture<Long> keep(RedisScript<Long> script, Hold hold, long keepMillis) {
		return this.scripts.runAsync(script, hold.redisKey(), "release", hold.key(), hold.owner(),
				Long.toString(keepMillis));
	}

	/**
	 * Releases all of a hold's holds: {@code KEYS[1]} the lock, {@code ARGV} the owner id, the release channel,
	 * {@link LockKind#ALL_HOLDS} and the kind's further arguments; the script answers one integer.
	 * @param script the kind's release script
	 * @param more the kind's further arguments
	 * @return the result, with no token
	 */
	CompletableFuture<ScriptExecutor.Pair> release(RedisScript<Long> script, Hold hold, String... more) {
		return this.scripts.runAsync(script, hold.redisKey(), "release", hold.key(),
				ownerChannelAllHolds(hold.owner(), hold.redisKey(), more)).thenApply(KindScripts::withoutToken);
	}

	/**
	 * Withdraws an attempt that gives up: its cancel script ({@code ARGV}: the owner id and the release channel),
	 * and after an unknown outcome also its release script, sent right after the cancel, not after its reply: on the
	 * same connection it runs after it, even when the cancel's reply does not come in time.
	 * @param cancel the kind's cancel script
	 * @param releaseIfUnknown the release to send after an unknown outcome, or {@code null} where the cancel script
	 * passes on a hold itself
	 * @param more the release's further arguments after {@link LockKind#ALL_HOLDS}
	 * @return completes when the withdrawal ended, however; never fails
	 */
	CompletableFuture<Void> withdraw(RedisScript<Long> cancel, Attempt attempt, boolean outcomeUnknown,
			@Nullable RedisScript<Long> releaseIfUnknown, String... more) {
		String channel = channel(attempt.redisKey());
		CompletableFuture<Void> cancelled = this.withdrawals.run(cancel, outcomeUnknown, attempt.redisKey(),
				attempt.key(), attempt.owner(), channel);
		if (!outcomeUnknown || releaseIfUnknown == null) {
			return cancelled;
		}
		return CompletableFuture.allOf(cancelled, this.withdrawals.run(releaseIfUnknown, true, attempt.redisKey(),
				attempt.key(), ownerChannelAllHolds(attempt.owner(), attempt.redisKey(), more)));
	}

	private String[] ownerChannelAllHolds(String owner, String redisKey, String... more) {
		String[] args = Arrays.copyOf(new String[] { owner, channel(redisKey), LockKind.ALL_HOLDS }, 3 + more.length);
		System.arraycopy(more, 0, args, 3, more.length);
		return args;
	}

	/** A pair of a result without a token, as the release scripts answer one integer. */
	static ScriptExecutor.Pair withoutToken(long result) {
		return new ScriptExecutor.Pair(result, 0);
	}

}
