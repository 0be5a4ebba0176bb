package io.github.distributedlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the scripts that withdraw what an acquisition attempt that gave up left in Redis (a place in a queue, a
 * claim, a grant or hold it never learnt of), sending one that failed on a dropped connection or a timeout again
 * a few times. Thread-safe.
 */
final class WithdrawalSender {

	/** The category its warnings have always been logged under (the class that ran withdrawals before). */
	private static final Log logger = LogFactory.getLog("io.github.distributedlock.redis.LockCommands");

	/** Pauses before a failed withdrawal is sent again (milliseconds), one per retry. */
	private static final long[] RETRIES_MILLIS = { 100, 400, 1000 };

	private final ScriptExecutor scripts;

	WithdrawalSender(ScriptExecutor scripts) {
		this.scripts = scripts;
	}

	/**
	 * Runs a withdrawal; after an unknown outcome Redis may be slow to answer, so by its text: it then runs
	 * after the try it cleans up after, even if its own reply comes too late. A withdrawal names one attempt,
	 * so running it late or twice is harmless: one that failed on a dropped connection or a timeout is sent
	 * again, a few times, so that a grant or hold of an attempt given up does not stay until its lease ends.
	 */
	CompletableFuture<Void> run(RedisScript<Long> script, boolean outcomeUnknown, String redisKey, String key,
			String... args) {
		CompletableFuture<Void> done = new CompletableFuture<>();
		run(script, outcomeUnknown, redisKey, key, args, 0, done);
		return done;
	}

	private void run(RedisScript<Long> script, boolean outcomeUnknown, String redisKey, String key,
			String[] args, int retry, CompletableFuture<Void> done) {
		CompletableFuture<Long> run;
		try {
			run = outcomeUnknown ? this.scripts.runTextAsync(script, redisKey, "withdraw the waiting claim on", key, args)
					: this.scripts.runAsync(script, redisKey, "withdraw the waiting claim on", key, args);
		}
		catch (RuntimeException ex) {
			run = CompletableFuture.failedFuture(ex);
		}
		run.whenComplete((result, ex) -> {
			if (ex == null) {
				done.complete(null);
				return;
			}
			RuntimeException failure = ScriptExecutor.unwrap(ex);
			if (retry < RETRIES_MILLIS.length && RedisFailures.isTransient(failure)) {
				CompletableFuture.delayedExecutor(RETRIES_MILLIS[retry], TimeUnit.MILLISECONDS)
					.execute(() -> run(script, true, redisKey, key, args, retry + 1, done));
				return;
			}
			logger.warn("Could not withdraw the waiting claim on lock '" + key + "': " + RedisFailures.outcome(failure)
					+ "; what it left in Redis ends by itself: a place in the queue within seconds, a hold with its lease");
			logger.debug("Withdrawal failure", failure);
			done.complete(null);
		});
	}

}
