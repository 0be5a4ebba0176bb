package io.github.distributedlock.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.ClassUtils;

/**
 * How the lock scripts reach Redis: {@link LettuceScriptTransport} sends them on Lettuce's shared connection
 * without blocking a thread; {@link ConnectionScriptTransport} runs them on a connection of the factory and
 * blocks the calling thread for the round trip (Jedis, or Lettuce without a shared connection). Each runs a
 * script with EVALSHA and falls back to EVAL when Redis does not know it (NOSCRIPT: after a restart or
 * {@code SCRIPT FLUSH}; see the EVALSHA documentation). Thread-safe.
 */
interface ScriptTransport {

	/**
	 * Runs a script.
	 * @param script the script
	 * @param multi whether it returns a list, or a list or an integer ({@code false}: an integer)
	 * @param sendText whether to send its text (EVAL) rather than its SHA1 (see
	 * {@link ScriptExecutor#runTextAsync})
	 * @param numKeys how many of {@code keysAndArgs} are keys (in Redis Cluster, of one slot)
	 * @param keysAndArgs the keys, then the arguments
	 * @return its reply ({@code Long}, or a {@code List} of {@code Long} and {@code byte[]}; with {@code multi},
	 * an integer reply may come as a {@code Long} or as a {@code List} of one); completed exceptionally with the
	 * client's own exception if Redis could not run it
	 */
	CompletableFuture<Object> eval(RedisScript<?> script, boolean multi, boolean sendText, int numKeys,
			byte[][] keysAndArgs);

	/**
	 * Tells whether Redis is a Redis Cluster, where the keys of one script must share a slot.
	 * @return {@code true} for a cluster; {@code true} too when it cannot be told yet (Redis unreachable)
	 */
	boolean isCluster();

	/**
	 * Runs integer scripts, each on its own key, pipelined: one round trip for all of them; one by one where
	 * the client has no pipelines (Jedis on a Redis Cluster).
	 * @param scripts the scripts
	 * @param keysAndArgs for each script, its key and then its arguments
	 * @return for each script, in order, a future of its {@code Long} reply or the {@code Throwable} it failed
	 * with, which completes when that reply came (never exceptionally)
	 */
	List<CompletableFuture<Object>> evalAll(List<RedisScript<Long>> scripts, List<byte[][]> keysAndArgs);

	/**
	 * Tells whether {@link #eval} blocks its caller for the round trip (and so completes its future before it
	 * returns): then code resumed by a timer or a notification must run its scripts on a thread of its own.
	 * @return {@code true} for a blocking client
	 */
	boolean isBlocking();

	/**
	 * Picks the transport for a connection factory: asynchronous on Lettuce with a shared native connection
	 * (Spring Data Redis's default), blocking otherwise.
	 * @param connectionFactory the factory
	 * @return the transport
	 */
	static ScriptTransport of(RedisConnectionFactory connectionFactory) {
		if (isLettuce(connectionFactory) && ((LettuceConnectionFactory) connectionFactory).getShareNativeConnection()) {
			return new LettuceScriptTransport((LettuceConnectionFactory) connectionFactory);
		}
		return new ConnectionScriptTransport(connectionFactory);
	}

	/**
	 * Tells whether a factory is Lettuce's, without loading Lettuce's classes where Lettuce is absent (a Jedis
	 * application that excluded it).
	 * @param connectionFactory the factory
	 * @return {@code true} for a {@link LettuceConnectionFactory}
	 */
	static boolean isLettuce(RedisConnectionFactory connectionFactory) {
		return ClassUtils.isPresent("io.lettuce.core.RedisClient", ScriptTransport.class.getClassLoader())
				&& connectionFactory instanceof LettuceConnectionFactory;
	}

	/**
	 * Tells whether a factory is Lettuce's for a Redis Cluster, as configured (without asking a connection, which
	 * would block), and without loading Lettuce's classes where Lettuce is absent.
	 * @param connectionFactory the factory
	 * @return {@code true} for a cluster-aware {@link LettuceConnectionFactory}
	 */
	static boolean isLettuceCluster(RedisConnectionFactory connectionFactory) {
		return isLettuce(connectionFactory) && ((LettuceConnectionFactory) connectionFactory).isClusterAware();
	}

	/**
	 * Whether Redis answered NOSCRIPT: it does not know the script's SHA1.
	 * @param ex a failure
	 * @return {@code true} if it or one of its causes says NOSCRIPT
	 */
	static boolean isNoScript(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.contains("NOSCRIPT")) {
				return true;
			}
		}
		return false;
	}

}
