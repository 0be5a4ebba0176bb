package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends the lock scripts with Lettuce's asynchronous API on the connection factory's shared native connection
 * (a cluster connection in Redis Cluster, which routes each script to the primary of its key's slot): no thread
 * waits for a reply, which completes the future on Lettuce's I/O thread. Commands time out after the
 * connection's command timeout ({@code spring.data.redis.timeout}), as Lettuce's timeout options (on by default)
 * make them. Scripts sent one after another are pipelined by Lettuce. While the shared connection is not open,
 * it is made on a thread of its own, and a command waits for it at most one command timeout (or one connect
 * timeout when shorter), then fails having run nothing: a connect that hangs (a TLS handshake against a plaintext
 * port, a server that never answers) may take Lettuce's connect timeout several times over, and must not hold
 * the caller longer than a command would. Thread-safe.
 */
final class LettuceScriptTransport implements ScriptTransport {

	private static final byte[][] NO_ARGS = new byte[0][];

	/** Makes connections; a thread only while one is being made. */
	private static final ExecutorService CONNECTING = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10,
			TimeUnit.SECONDS, new SynchronousQueue<>(), LeaseWatchdog.daemonThreads("distributed-lock-connect"));

	private final LettuceConnectionFactory connectionFactory;

	/** The shared connection's commands, while it is open: asked for again only when it was closed. */
	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

	/** The connect in progress, which every command waits for while the connection is not open. */
	private @Nullable CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connecting;

	/**
	 * Creates the transport and starts connecting in the background, so that the first command does not have to
	 * wait for the connect (which may take a while: the client's first connection loads and starts a lot).
	 * @param connectionFactory the factory whose shared connection the scripts are sent on
	 */
	LettuceScriptTransport(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		connect();
	}

	@Override
	public CompletableFuture<Object> eval(RedisScript<?> script, boolean multi, boolean sendText, int numKeys,
			byte[][] keysAndArgs) {
		ScriptOutputType type = multi ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
		return withCommands((commands) -> eval(commands, script, type, sendText, numKeys, keysAndArgs));
	}

	/**
	 * Runs {@code command} on the shared connection's commands: at once while the connection is open, otherwise
	 * once it is made, or fails (having run nothing) if it is not made within {@link #connectWait()}.
	 */
	private <T> CompletableFuture<T> withCommands(
			Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletableFuture<T>> command) {
		RedisClusterAsyncCommands<byte[], byte[]> current = this.commands;
		if (current != null && isOpen(current)) {
			return command.apply(current);
		}
		Duration timeout = connectWait();
		return connect().copy()
			.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
			.exceptionallyCompose((ex) -> CompletableFuture.failedFuture((ex instanceof TimeoutException)
					? new RedisFailures.NotConnectedException("No connection to Redis within " + timeout.toMillis()
							+ " ms (the command timeout or the connect timeout, the shorter); nothing was sent")
					: ex))
			.thenCompose(command);
	}

	/**
	 * How long a command waits for the connection: the command timeout, or the connect timeout when that is
	 * shorter (Spring Data Redis may try to connect more than once before it gives up, each up to the connect
	 * timeout).
	 */
	private Duration connectWait() {
		LettuceClientConfiguration configuration = this.connectionFactory.getClientConfiguration();
		Duration timeout = configuration.getCommandTimeout();
		Duration connectTimeout = configuration.getClientOptions()
			.map((options) -> options.getSocketOptions().getConnectTimeout())
			.orElse(SocketOptions.DEFAULT_CONNECT_TIMEOUT_DURATION);
		return (connectTimeout.compareTo(timeout) < 0) ? connectTimeout : timeout;
	}

	/** Starts a connect unless one is in progress. */
	private synchronized CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connect() {
		CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> current = this.connecting;
		if (current == null || current.isDone()) {
			current = new CompletableFuture<>();
			this.connecting = current;
			CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> made = current;
			try {
				CONNECTING.execute(() -> {
					try {
						made.complete(commands());
					}
					catch (RuntimeException ex) {
						// a stopped factory (IllegalStateException) or a failed connect
						made.completeExceptionally(ex);
					}
				});
			}
			catch (RejectedExecutionException ex) {
				made.completeExceptionally(ex);
			}
		}
		return current;
	}

	private CompletableFuture<Object> eval(RedisClusterAsyncCommands<byte[], byte[]> commands,
			RedisScript<?> script, ScriptOutputType type, boolean sendText, int numKeys, byte[][] keysAndArgs) {
		byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, numKeys);
		byte[][] args = (keysAndArgs.length > numKeys) ? Arrays.copyOfRange(keysAndArgs, numKeys, keysAndArgs.length)
				: NO_ARGS;
		if (sendText) {
			return commands.<Object>eval(text(script), type, keys, args).toCompletableFuture();
		}
		return commands.<Object>evalsha(script.getSha1(), type, keys, args)
			.toCompletableFuture()
			.exceptionallyCompose((ex) -> {
				if (!ScriptTransport.isNoScript(ex)) {
					return CompletableFuture.failedFuture(ex);
				}
				return commands.<Object>eval(text(script), type, keys, args).toCompletableFuture();
			});
	}

	@Override
	public List<CompletableFuture<Object>> evalAll(List<RedisScript<Long>> scripts, List<byte[][]> keysAndArgs) {
		List<CompletableFuture<Object>> replies = new ArrayList<>(scripts.size());
		RedisClusterAsyncCommands<byte[], byte[]> commands;
		try {
			commands = withCommands(CompletableFuture::completedFuture).join();
		}
		catch (RuntimeException ex) {
			Throwable failure = (ex instanceof CompletionException && ex.getCause() != null)
					? ex.getCause() : ex;
			scripts.forEach((script) -> replies.add(CompletableFuture.completedFuture(failure)));
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
