package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends the lock scripts with Lettuce's asynchronous API on the connection factory's shared native connection
 * (a cluster connection in Redis Cluster, which routes each script to the primary of its key's slot): no thread
 * waits for a reply, which completes the future on Lettuce's I/O thread. Commands time out after the
 * connection's command timeout ({@code spring.data.redis.timeout}), as Lettuce's timeout options (on by default)
 * make them. Scripts sent one after another are pipelined by Lettuce. Thread-safe.
 */
final class LettuceScriptTransport implements ScriptTransport {

	private static final byte[][] NO_ARGS = new byte[0][];

	private final LettuceConnectionFactory connectionFactory;

	/** The shared connection's commands, while it is open: asked for again only when it was closed. */
	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

	LettuceScriptTransport(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public CompletableFuture<Object> eval(RedisScript<?> script, boolean multi, boolean sendText, int numKeys,
			byte[][] keysAndArgs) {
		RedisClusterAsyncCommands<byte[], byte[]> commands;
		try {
			commands = commands();
		}
		catch (RuntimeException ex) {
			// a stopped factory (IllegalStateException) or a failed connect
			return CompletableFuture.failedFuture(ex);
		}
		return eval(commands, script, multi ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER, sendText, numKeys,
				keysAndArgs);
	}

	private static CompletableFuture<Object> eval(RedisClusterAsyncCommands<byte[], byte[]> commands,
			RedisScript<?> script, ScriptOutputType type, boolean sendText, int numKeys, byte[][] keysAndArgs) {
		byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, numKeys);
		byte[][] args = (keysAndArgs.length > numKeys) ? Arrays.copyOfRange(keysAndArgs, numKeys, keysAndArgs.length)
				: NO_ARGS;
		if (sendText) {
			return commands.<Object>eval(text(script), type, keys, args).toCompletableFuture();
		}
		return commands.<Object>evalsha(script.getSha1(), type, keys, args)
			.toCompletableFuture()
			.exceptionallyCompose((ex) -> ScriptTransport.isNoScript(ex)
					? commands.<Object>eval(text(script), type, keys, args).toCompletableFuture()
					: CompletableFuture.failedFuture(ex));
	}

	@Override
	public List<CompletableFuture<Object>> evalAll(List<RedisScript<Long>> scripts, List<byte[][]> keysAndArgs) {
		List<CompletableFuture<Object>> replies = new ArrayList<>(scripts.size());
		RedisClusterAsyncCommands<byte[], byte[]> commands;
		try {
			commands = commands();
		}
		catch (RuntimeException ex) {
			scripts.forEach((script) -> replies.add(CompletableFuture.completedFuture(ex)));
			return replies;
		}
		// sent back to back without waiting: Lettuce writes them as one pipeline and matches replies in order;
		// each completes on its own, so a slow node (in a cluster) holds up only the scripts sent to it
		for (int i = 0; i < scripts.size(); i++) {
			replies.add(eval(commands, scripts.get(i), ScriptOutputType.INTEGER, false, 1, keysAndArgs.get(i))
				.handle((reply, ex) -> (ex != null) ? ex : reply));
		}
		return replies;
	}

	@Override
	public boolean isBlocking() {
		return false;
	}

	@Override
	public boolean isCluster() {
		try {
			return commands() instanceof RedisAdvancedClusterAsyncCommands;
		}
		catch (RuntimeException ex) {
			return true;
		}
	}

	/**
	 * The asynchronous commands of the factory's shared connection. Kept while the connection is open (Lettuce
	 * reconnects it by itself), and asked for again once it was closed (the factory was reset): asking may
	 * connect, which blocks, and so must not happen on every command, which may be sent from Lettuce's own I/O
	 * threads. Closing the factory's connection wrapper leaves the shared connection open.
	 */
	@SuppressWarnings("unchecked")
	private RedisClusterAsyncCommands<byte[], byte[]> commands() {
		RedisClusterAsyncCommands<byte[], byte[]> current = this.commands;
		if (current != null && isOpen(current)) {
			return current;
		}
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			current = (RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection();
		}
		this.commands = current;
		return current;
	}

	private static boolean isOpen(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		if (commands instanceof RedisAsyncCommands<byte[], byte[]> standalone) {
			return standalone.getStatefulConnection().isOpen();
		}
		if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			return cluster.getStatefulConnection().isOpen();
		}
		return false;
	}

	private static byte[] text(RedisScript<?> script) {
		return script.getScriptAsString().getBytes(StandardCharsets.UTF_8);
	}

}
