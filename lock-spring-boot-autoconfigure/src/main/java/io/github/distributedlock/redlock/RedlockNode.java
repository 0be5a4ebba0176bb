package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ReconnectAttemptEvent;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * One independent Redis primary of a Redlock: its own Lettuce {@link RedisClient} and one connection, opened at
 * the first command and reopened after a failed open (Lettuce reconnects an open connection itself). Every
 * command is asynchronous and bounded by the per-node timeout: its future fails with a
 * {@link java.util.concurrent.TimeoutException} (or Lettuce's own timeout) when the node does not answer in time.
 * Commands sent while disconnected are refused at once rather than queued, so a late vote is the exception, not
 * the rule (and every script names its attempt, so a late one is harmless). Whether the node answers is kept in
 * its {@link RedlockNodeState}, from every command's outcome and from its client's connection events (a lost
 * connection, which Lettuce tries to reconnect, is told at once; a reopened one is confirmed with a {@code PING}). Thread-safe.
 */
final class RedlockNode implements AutoCloseable {

	private final String name;

	private final RedisURI uri;

	private final RedisClient client;

	private final Duration timeout;

	private final RedlockNodeState state;

	/** The connection, or its opening under way; {@code null} before the first command or after a failed open. */
	private @Nullable CompletableFuture<StatefulRedisConnection<String, String>> connection;

	private boolean closed;

	/**
	 * Creates a node that connects a {@code rediss://} URL with Lettuce's default TLS settings.
	 * @param url the node's URL ({@code redis://} or {@code rediss://}, user and password in it)
	 * @param timeout the per-node timeout
	 * @throws IllegalArgumentException if the URL is malformed (the message names it, without its password)
	 */
	RedlockNode(String url, Duration timeout) {
		this(url, timeout, null);
	}

	/**
	 * Creates a node, without connecting.
	 * @param url the node's URL ({@code redis://} or {@code rediss://}, user and password in it)
	 * @param timeout the per-node timeout
	 * @param ssl how a {@code rediss://} node is connected (trust and key material, protocols, ciphers);
	 * {@code null} for Lettuce's defaults (the JVM's default trust store)
	 * @throws IllegalArgumentException if the URL is malformed (the message names it, without its password)
	 */
	RedlockNode(String url, Duration timeout, @Nullable SslOptions ssl) {
		RedisURI parsed;
		try {
			parsed = RedisURI.create(url);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("Malformed Redlock node URL '" + redact(url) + "': " + ex.getMessage(),
					ex);
		}
		this.uri = parsed;
		this.name = parsed.getHost() + ":" + parsed.getPort();
		this.timeout = timeout;
		this.uri.setTimeout(timeout);
		this.client = RedisClient.create(this.uri);
		ClientOptions.Builder options = ClientOptions.builder()
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.timeoutOptions(TimeoutOptions.enabled(timeout));
		if (ssl != null) {
			options.sslOptions(ssl);
		}
		this.client.setOptions(options.build());
		this.state = new RedlockNodeState(this.name);
		// a reconnect attempt means a connection was lost, not closed by this client (a subscription refused, the
		// shutdown); a connection activated again is answering once a PING says so. Never disposed of: the bus ends
		// with this client's resources at close(), and a subscription disposed of while a connection's last event was
		// on its way has Reactor log the rejected delivery as an ERROR (onErrorDropped, "Scheduler unavailable"); left
		// in place, that delivery fails into the error handler below, and after close() the node's state ignores
		// what the events tell
		this.client.getResources().eventBus().get().subscribe((event) -> {
			if (event instanceof ReconnectAttemptEvent) {
				this.state.disconnected();
			}
			else if (event instanceof ConnectionActivatedEvent) {
				ping();
			}
		}, (failure) -> {
			// a delivery the bus's scheduler refused as the client shut down
		});
	}

	/**
	 * Creates the nodes of a Redlock, without connecting.
	 * @param settings the settings, with the nodes' URLs
	 * @param ssl how the {@code rediss://} nodes are connected; {@code null} for Lettuce's defaults
	 * @return one node per URL, in their order
	 * @throws IllegalArgumentException if a URL is malformed (the nodes made so far are closed)
	 */
	static List<RedlockNode> all(RedlockSettings settings, @Nullable SslOptions ssl) {
		List<RedlockNode> nodes = new ArrayList<>();
		try {
			for (String url : settings.nodes()) {
				nodes.add(new RedlockNode(url, settings.nodeTimeout(), ssl));
			}
		}
		catch (RuntimeException ex) {
			nodes.forEach(RedlockNode::close);
			throw ex;
		}
		return nodes;
	}

	/**
	 * Returns the node's name for messages and logs.
	 * @return {@code host:port}, never the password
	 */
	String name() {
		return this.name;
	}

	/**
	 * Whether the node is reached over TLS.
	 * @return {@code true} for a {@code rediss://} node
	 */
	boolean isTls() {
		return this.uri.isSsl();
	}

	/**
	 * Starts opening the connection without waiting, so that the first vote does not pay for it within the
	 * per-node timeout.
	 * @return completes when the connection is open, or fails
	 */
	CompletableFuture<?> connect() {
		return connection();
	}

	/**
	 * Runs a script on this node by its SHA1 ({@code EVALSHA}), so that no script text goes over the wire, and
	 * with its text ({@code EVAL}) when the node answers {@code NOSCRIPT}: a node restarted empty, or whose
	 * script cache was flushed, has none of them. The {@code EVAL} is sent only once the {@code NOSCRIPT}
	 * answer came; a command that must run even if this client stops waiting for it uses {@link #evalText}.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return completes with the script's reply (a {@code Long} or a {@code List}), or fails: the node could not
	 * be reached, did not answer within the per-node timeout, or the script failed
	 */
	CompletableFuture<Object> eval(RedlockScript script, String[] keys, String... args) {
		return withConnection((conn) -> conn.async()
			.<Object>evalsha(script.sha1(), script.output(), keys, args)
			.toCompletableFuture()
			.exceptionallyCompose((ex) -> isNoScript(ex) ? conn.async()
				.<Object>eval(script.source(), script.output(), keys, args)
				.toCompletableFuture() : CompletableFuture.failedFuture(ex)));
	}

	/**
	 * Runs a script on this node with its text ({@code EVAL}): for a command that must run even when this
	 * client stops waiting for its reply (the node is slow). An {@code EVALSHA} answered {@code NOSCRIPT} after
	 * the per-node timeout would never be followed by its text, so the command would not run at all.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return completes with the script's reply, or fails as {@link #eval} does
	 */
	CompletableFuture<Object> evalText(RedlockScript script, String[] keys, String... args) {
		return withConnection((conn) -> conn.async()
			.<Object>eval(script.source(), script.output(), keys, args)
			.toCompletableFuture());
	}

	/**
	 * Opens a publish/subscribe connection to this node (Lettuce reconnects it, and subscribes it again, by
	 * itself once open); closed with the node.
	 * @return completes with the connection, or fails: the node is closed or could not be reached
	 */
	CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
		synchronized (this) {
			if (this.closed) {
				return CompletableFuture
					.failedFuture(new IllegalStateException("Redlock node " + this.name + " is closed"));
			}
		}
		return this.client.connectPubSubAsync(StringCodec.UTF8, this.uri).toCompletableFuture();
	}

	/**
	 * Reads a section of {@code INFO}.
	 * @param section such as {@code "replication"}
	 * @return completes with the section's text, or fails as {@link #eval} does
	 */
	CompletableFuture<String> info(String section) {
		return withConnection((conn) -> conn.async().info(section).toCompletableFuture(), false);
	}

	/**
	 * Sends a {@code PING}.
	 * @return completes with the reply, or fails as {@link #eval} does
	 */
	CompletableFuture<String> ping() {
		return withConnection((conn) -> conn.async().ping().toCompletableFuture());
	}

	/**
	 * Tells how the node stands, as the last command to it found.
	 * @return its status
	 */
	RedlockNodeStatus status() {
		return this.state.status();
	}

	/**
	 * Tells whether the last command to the node was answered (or none came back yet): a vote waits for such a
	 * node's answer, not for one whose last command timed out or could not be sent.
	 * @return {@code true} unless the last command failed without a reply
	 */
	boolean lastAnswered() {
		return this.state.lastAnswered();
	}

	/**
	 * Reads the configuration values a pattern matches ({@code CONFIG GET}, one pattern: Redis before 7 takes no
	 * more).
	 * @param pattern such as {@code "maxmemory*"}
	 * @return completes with the values by name, or fails (also when {@code CONFIG} is not permitted to this user,
	 * or the server does not offer it)
	 */
	CompletableFuture<Map<String, String>> configs(String pattern) {
		return withConnection((conn) -> conn.async().configGet(pattern).toCompletableFuture(), false);
	}

	/**
	 * Reads a configuration value.
	 * @param parameter such as {@code "appendfsync"}
	 * @return completes with the value ({@code null} if unknown), or fails (also when {@code CONFIG} is not
	 * permitted to this user)
	 */
	CompletableFuture<@Nullable String> config(String parameter) {
		return withConnection((conn) -> conn.async()
			.configGet(parameter)
			.toCompletableFuture()
			.thenApply((values) -> values.get(parameter)), false);
	}

	private <T> CompletableFuture<T> withConnection(
			java.util.function.Function<StatefulRedisConnection<String, String>, CompletableFuture<T>> command) {
		return withConnection(command, true);
	}

	/**
	 * Runs a command once the connection is open, bounded by the per-node timeout.
	 * @param command the command
	 * @param lockTraffic whether its outcome tells whether the node answers the locks (a command of the lock
	 * scripts, a {@code PING}); the startup checks' reads are not: a user may lack {@code INFO} or {@code CONFIG}
	 * and still lock. A failure to open the connection is told either way
	 */
	private <T> CompletableFuture<T> withConnection(
			java.util.function.Function<StatefulRedisConnection<String, String>, CompletableFuture<T>> command,
			boolean lockTraffic) {
		long sentAt = System.nanoTime();
		CompletableFuture<StatefulRedisConnection<String, String>> current = connection();
		CompletableFuture<T> result = current.whenComplete((connection, failure) -> {
			if (failure != null) {
				this.state.failed(failure, sentAt);
			}
		}).thenCompose(command).orTimeout(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		if (!lockTraffic) {
			return result;
		}
		return result.whenComplete((reply, failure) -> {
			if (failure == null) {
				this.state.answered();
			}
			else {
				this.state.failed(failure, sentAt);
			}
		});
	}

	private synchronized CompletableFuture<StatefulRedisConnection<String, String>> connection() {
		if (this.closed) {
			return CompletableFuture.failedFuture(new IllegalStateException("Redlock node " + this.name + " is closed"));
		}
		CompletableFuture<StatefulRedisConnection<String, String>> current = this.connection;
		if (current == null || current.isCompletedExceptionally()) {
			CompletableFuture<StatefulRedisConnection<String, String>> opening = this.client
				.connectAsync(StringCodec.UTF8, this.uri)
				.toCompletableFuture();
			this.connection = opening;
			return opening;
		}
		return current;
	}

	@Override
	public void close() {
		this.state.close();
		CompletableFuture<StatefulRedisConnection<String, String>> current;
		synchronized (this) {
			this.closed = true;
			current = this.connection;
			this.connection = null;
		}
		if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
			current.join().close();
		}
		this.client.shutdown(Duration.ZERO, this.timeout);
	}

	@Override
	public String toString() {
		return "Redlock node " + this.name;
	}

	private static boolean isNoScript(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof RedisNoScriptException
					|| (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"))) {
				return true;
			}
		}
		return false;
	}

	private static String redact(String url) {
		return url.replaceAll("//[^@/]*@", "//***@");
	}

}
