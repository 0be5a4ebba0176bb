package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the lock scripts on one lock key through a {@link ScriptTransport}, asynchronously, and checks their
 * replies. Failures, also a connection factory that is stopped, surface as {@link DistributedLockException}
 * naming the action and the lock ({@link RedisFailures#failure}). The blocking variants wait for the asynchronous ones.
 * Thread-safe.
 */
final class ScriptExecutor {

	private final ScriptTransport transport;

	ScriptExecutor(RedisConnectionFactory connectionFactory) {
		this(ScriptTransport.of(connectionFactory));
	}

	ScriptExecutor(ScriptTransport transport) {
		this.transport = transport;
	}

	/**
	 * Tells whether scripts block the calling thread (see {@link ScriptTransport#isBlocking()}).
	 * @return {@code true} for a blocking client
	 */
	boolean isBlocking() {
		return this.transport.isBlocking();
	}

	/**
	 * Tells whether Redis is a Redis Cluster (see {@link ScriptTransport#isCluster()}).
	 * @return {@code true} for a cluster, or when it cannot be told yet
	 */
	boolean isCluster() {
		return this.transport.isCluster();
	}

	/**
	 * Runs a script on several keys (in Redis Cluster, of one slot) that returns a list of integers.
	 * @param script the script
	 * @param action what it does, for the error message
	 * @param keys its keys
	 * @param args its arguments
	 * @return the list, one integer per key for the scripts of this client; failed with a
	 * {@link DistributedLockException} if Redis could not run it
	 */
	CompletableFuture<List<?>> runOnKeysAsync(RedisScript<?> script, String action, List<String> keys,
			List<String> args) {
		byte[][] keysAndArgs = new byte[keys.size() + args.size()][];
		for (int i = 0; i < keys.size(); i++) {
			keysAndArgs[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
		}
		for (int i = 0; i < args.size(); i++) {
			keysAndArgs[keys.size() + i] = args.get(i).getBytes(StandardCharsets.UTF_8);
		}
		String what = (keys.size() == 1) ? keys.get(0) : keys.get(0) + " (and " + (keys.size() - 1) + " more)";
		return this.transport.eval(script, true, false, keys.size(), keysAndArgs)
			.exceptionallyCompose(
					(ex) -> CompletableFuture.failedFuture(RedisFailures.failure(action, what, what, ex)))
			.thenApply((reply) -> {
				if (reply instanceof List<?> list && list.size() == keys.size()) {
					return list;
				}
				throw noResult(action, what, reply);
			});
	}

	/**
	 * Runs a script that returns an integer.
	 * @param script the script
	 * @param redisKey its one key
	 * @param action what it does, for the error message ("acquire", "renew"...)
	 * @param key the lock key, for the error message
	 * @param args its arguments
	 * @return what the script returned; failed with a {@link DistributedLockException} if Redis could not run it
	 */
	CompletableFuture<Long> runAsync(RedisScript<Long> script, String redisKey, String action, String key,
			String... args) {
		return eval(script, false, false, redisKey, action, key, args)
			.thenApply((reply) -> toLong(reply, action, key));
	}

	/**
	 * Runs a script that returns an integer with EVAL, sending its text rather than its SHA1: for a command
	 * that must run in Redis even when the client stops waiting for its reply (after a command timeout). With
	 * EVALSHA, Redis might answer NOSCRIPT to a client that no longer listens, which then never sends the text.
	 * @param script the script
	 * @param redisKey its one key
	 * @param action what it does, for the error message
	 * @param key the lock key, for the error message
	 * @param args its arguments
	 * @return what the script returned; failed with a {@link DistributedLockException} if Redis could not run
	 * it, or its reply did not come in time
	 */
	CompletableFuture<Long> runTextAsync(RedisScript<Long> script, String redisKey, String action, String key,
			String... args) {
		return eval(script, false, true, redisKey, action, key, args)
			.thenApply((reply) -> toLong(reply, action, key));
	}

	/**
	 * Runs a script that returns a pair of integers, such as a result and a fencing token.
	 * @param script the script
	 * @param redisKey its one key
	 * @param action what it does, for the error message
	 * @param key the lock key, for the error message
	 * @param args its arguments
	 * @return the pair; failed with a {@link DistributedLockException} if Redis could not run it
	 */
	CompletableFuture<Pair> runPairAsync(RedisScript<Long> script, String redisKey, String action, String key,
			String... args) {
		return eval(script, true, false, redisKey, action, key, args)
			.thenApply((reply) -> toPair(reply, action, key));
	}

	/**
	 * Runs an acquire script that answers an acquisition with its fencing token alone, one integer (an array
	 * reply costs Redis and the client more, on every uncontended acquisition), and anything else with a pair.
	 * @param script the script
	 * @param redisKey its one key
	 * @param action what it does, for the error message
	 * @param key the lock key, for the error message
	 * @param args its arguments
	 * @return the pair: {@link LockScripts#ACQUIRED} and the token for one integer; failed with a
	 * {@link DistributedLockException} if Redis could not run it
	 */
	CompletableFuture<Pair> runAcquireAsync(RedisScript<Long> script, String redisKey, String action, String key,
			String... args) {
		return eval(script, true, false, redisKey, action, key, args)
			.thenApply((reply) -> toAcquisition(reply, action, key));
	}

	/**
	 * Runs a script that returns an integer, and waits for it.
	 * @return what the script returned
	 * @throws DistributedLockException if Redis could not run it
	 * @see #runAsync
	 */
	long run(RedisScript<Long> script, String redisKey, String action, String key, String... args) {
		return await(runAsync(script, redisKey, action, key, args));
	}

	/**
	 * Runs a script that returns a list (of integers and strings, the strings as {@code byte[]}), and waits for it.
	 * @param script the script
	 * @param redisKey its one key
	 * @param action what it does, for the error message
	 * @param key the lock key, for the error message
	 * @param args its arguments
	 * @return the list
	 * @throws DistributedLockException if Redis could not run it
	 */
	List<?> runList(RedisScript<?> script, String redisKey, String action, String key, String... args) {
		return await(eval(script, true, false, redisKey, action, key, args).thenApply((reply) -> {
			if (reply instanceof List<?> list) {
				return list;
			}
			throw noResult(action, key, reply);
		}));
	}

	/**
	 * Runs scripts that return an integer, each on its own key, in one pipeline: one round trip for all of them
	 * instead of one each, so that the watchdog renews a thousand locks over a slow network within their
	 * leases. A script that Redis does not know yet (NOSCRIPT) is run again, sending its text.
	 * @param calls the scripts to run
	 * @return for each call, in the same order, a future of its result or its failure, which completes when
	 * that call's reply came (never exceptionally)
	 */
	List<CompletableFuture<Outcome>> runAllAsync(List<Call> calls) {
		List<RedisScript<Long>> scripts = new ArrayList<>(calls.size());
		List<byte[][]> keysAndArgs = new ArrayList<>(calls.size());
		for (Call call : calls) {
			scripts.add(call.script());
			keysAndArgs.add(keysAndArgs(call.redisKey(), call.args()));
		}
		List<CompletableFuture<Object>> replies = this.transport.evalAll(scripts, keysAndArgs);
		List<CompletableFuture<Outcome>> outcomes = new ArrayList<>(calls.size());
		for (int i = 0; i < calls.size(); i++) {
			Call call = calls.get(i);
			outcomes.add(replies.get(i).thenApply((reply) -> (reply instanceof Long value) ? new Outcome(value, null)
					: new Outcome(0, (reply instanceof Throwable failure)
							? RedisFailures.failure(call.action(), call.key(), call.redisKey(), failure)
							: noResult(call.action(), call.key(), reply))));
		}
		return outcomes;
	}

	private CompletableFuture<Object> eval(RedisScript<?> script, boolean multi, boolean sendText, String redisKey,
			String action, String key, String... args) {
		return this.transport.eval(script, multi, sendText, 1, keysAndArgs(redisKey, args))
			.exceptionallyCompose((ex) -> CompletableFuture.failedFuture(RedisFailures.failure(action, key, redisKey, ex)));
	}

	/**
	 * Waits for a lock operation, without being cut short by an interrupt (the thread's interrupt status is
	 * kept): the operation is bounded by the command timeout, and one abandoned halfway could leave a lock held
	 * by nobody until its lease ends.
	 * @param <T> the result type
	 * @param future the operation
	 * @return its result
	 * @throws RuntimeException what the operation failed with, as it failed: {@link DistributedLockException},
	 * {@link io.github.distributedlock.core.LockLostException}, {@link IllegalMonitorStateException}...
	 */
	static <T> T await(CompletableFuture<T> future) {
		try {
			return future.join();
		}
		catch (CompletionException ex) {
			throw unwrap(ex);
		}
	}

	/**
	 * Returns the failure inside a {@link CompletionException} or {@link ExecutionException}, as a runtime
	 * exception to rethrow.
	 * @param ex a failure of a future
	 * @return the runtime exception or error to throw
	 */
	static RuntimeException unwrap(Throwable ex) {
		Throwable cause = RedisFailures.unwrapFuture(ex);
		if (cause instanceof RuntimeException runtime) {
			return runtime;
		}
		if (cause instanceof Error error) {
			throw error;
		}
		return new DistributedLockException("A lock operation failed: " + cause, cause);
	}

	/**
	 * Reads a script's integer reply.
	 * @param result the reply
	 * @param action what the script does
	 * @param key the lock key
	 * @return the integer
	 * @throws DistributedLockException if the reply is no integer
	 */
	static long toLong(@Nullable Object result, String action, String key) {
		if (!(result instanceof Long value)) {
			throw noResult(action, key, result);
		}
		return value;
	}

	/**
	 * Reads a script's reply of two integers, such as a result and a fencing token.
	 * @param result the reply
	 * @param action what the script does
	 * @param key the lock key
	 * @return the pair
	 * @throws DistributedLockException if the reply is no list of two integers
	 */
	static Pair toPair(@Nullable Object result, String action, String key) {
		if (result instanceof List<?> list && list.size() == 2 && list.get(0) instanceof Long first
				&& list.get(1) instanceof Long second) {
			return new Pair(first, second);
		}
		throw noResult(action, key, result);
	}

	/**
	 * Reads the reply of an acquire script that answers an acquisition with its fencing token alone, one integer
	 * (a list of one from Lettuce's list output, a {@code Long} from Jedis's: see {@link ScriptTransport}), and
	 * anything else with a pair.
	 * @param result the reply
	 * @param action what the script does
	 * @param key the lock key
	 * @return {@link LockScripts#ACQUIRED} and the token for one integer, else the pair
	 * @throws DistributedLockException if the reply is neither
	 */
	static Pair toAcquisition(@Nullable Object result, String action, String key) {
		if (result instanceof Long token) {
			return new Pair(LockScripts.ACQUIRED, token);
		}
		if (result instanceof List<?> list && list.size() == 1 && list.get(0) instanceof Long token) {
			return new Pair(LockScripts.ACQUIRED, token);
		}
		return toPair(result, action, key);
	}

	/**
	 * Words a reply that is not what the script returns.
	 * @param action what the script does
	 * @param key the lock key
	 * @param result the reply
	 * @return the exception to fail with
	 */
	static DistributedLockException noResult(String action, String key, @Nullable Object result) {
		return new DistributedLockException("Could not " + action + " lock '" + key + "': Redis returned "
				+ ((result != null) ? "an unexpected " + result.getClass().getSimpleName() : "no result"));
	}

	private static byte[][] keysAndArgs(String redisKey, String... args) {
		byte[][] keysAndArgs = new byte[1 + args.length][];
		keysAndArgs[0] = redisKey.getBytes(StandardCharsets.UTF_8);
		for (int i = 0; i < args.length; i++) {
			keysAndArgs[i + 1] = args[i].getBytes(StandardCharsets.UTF_8);
		}
		return keysAndArgs;
	}

	/**
	 * What a script that returns two integers returned.
	 * @param result the first: the operation's result code
	 * @param token the second: a fencing token, or 0
	 */
	record Pair(long result, long token) {
	}

	/**
	 * One script to run in a pipeline ({@link #runAllAsync(List)}).
	 * @param script the script
	 * @param redisKey its one key
	 * @param action what it does, for the error message
	 * @param key the lock key, for the error message
	 * @param args its arguments
	 */
	record Call(RedisScript<Long> script, String redisKey, String action, String key, String... args) {
	}

	/**
	 * What one script of a pipeline returned, or why it failed.
	 * @param result the script's result; 0 if it failed
	 * @param failure why it failed, or {@code null} if it ran
	 */
	record Outcome(long result, @Nullable DistributedLockException failure) {
	}

}
