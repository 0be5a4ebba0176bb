package io.github.distributedlock.redlock;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The startup checks of the Redlock nodes: each must be an independent primary, so a node that is another
 * node's server again ({@code run_id}), a replica ({@code INFO replication} role) or a member of a Redis Cluster
 * ({@code cluster_enabled}) is refused, with the node named. Per node, a log line says whether it persists
 * ({@code appendonly}, {@code appendfsync}), and a WARN where a restart could lose a lock. A node that cannot be
 * reached within {@link #CONNECT_WAIT_SECONDS} (its connection not open, or its commands not answered: each is
 * bounded by the per-node timeout, and asked again until then) is WARNed about and not checked (Redlock works while
 * a majority answers). Not thread-safe: runs once.
 */
final class RedlockNodeChecks {

	private static final Log logger = LogFactory.getLog(RedlockNodeChecks.class);

	/**
	 * How long the checks may take in all, in seconds: the nodes' connections open at once, and a command that the
	 * per-node timeout cut short (a loaded machine at startup, a TLS handshake) is asked again until then, so that
	 * a slow start does not leave a misconfigured node unchecked. A read asked twice is harmless.
	 */
	static final long CONNECT_WAIT_SECONDS = 5;

	/** The pause before a check's command is asked again, in milliseconds. */
	private static final long RETRY_PAUSE_MILLIS = 20;

	private RedlockNodeChecks() {
	}

	/**
	 * Checks every node, in turn.
	 * @param nodes the nodes
	 * @param quorum the quorum, for the log
	 * @throws IllegalStateException if a node is refused; the message names it and says why
	 */
	static void check(List<RedlockNode> nodes, int quorum) {
		if (nodes.size() % 2 == 0) {
			logger.warn("Redlock over " + nodes.size() + " nodes: an even number tolerates no more failures than "
					+ (nodes.size() - 1) + " nodes (quorum " + quorum + "); an odd number is recommended");
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CONNECT_WAIT_SECONDS);
		awaitConnections(nodes);
		Map<String, String> runIds = new HashMap<>();
		for (RedlockNode node : nodes) {
			Map<String, String> info = info(node, deadline);
			if (info == null) {
				continue;
			}
			String runId = info.getOrDefault("run_id", "");
			String other = runIds.putIfAbsent(runId, node.name());
			if (!runId.isEmpty() && other != null) {
				throw new IllegalStateException("Redlock nodes " + other + " and " + node.name() + " are one Redis "
						+ "server (run_id " + runId + "): Redlock needs independent primaries, list each once");
			}
			String role = info.getOrDefault("role", "master");
			if (!"master".equals(role)) {
				throw new IllegalStateException("Redlock node " + node.name() + " is a replica (role:" + role
						+ "): Redlock needs independent primaries; a replica follows its primary and would vote "
						+ "twice for it");
			}
			if ("1".equals(info.get("cluster_enabled"))) {
				throw new IllegalStateException("Redlock node " + node.name() + " is a Redis Cluster member "
						+ "(cluster_enabled:1): Redlock needs independent primaries, not the shards of one cluster");
			}
			logPersistence(node, deadline);
		}
	}

	/**
	 * Waits for every node's connection at once, up to {@link #CONNECT_WAIT_SECONDS} in all (not per node): a node
	 * that does not connect in time is then reported by its {@code INFO}, which names the cause.
	 */
	private static void awaitConnections(List<RedlockNode> nodes) {
		CompletableFuture<?>[] connections = nodes.stream()
			.map((node) -> node.connect().exceptionally((ex) -> null))
			.toArray(CompletableFuture[]::new);
		try {
			CompletableFuture.allOf(connections).get(CONNECT_WAIT_SECONDS, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// the nodes still connecting are checked as they are: their INFO says why
		}
	}

	private static @Nullable Map<String, String> info(RedlockNode node, long deadline) {
		try {
			Map<String, String> values = new HashMap<>();
			for (String section : List.of("server", "replication", "cluster")) {
				parse(untilDeadline(() -> node.info(section), deadline), values);
			}
			return values;
		}
		catch (CompletionException ex) {
			logger.warn("Redlock node " + node.name() + " cannot be reached at startup (" + why(ex.getCause())
					+ "); it is not checked, and votes once it answers");
			return null;
		}
	}

	// Lettuce's "Unable to connect" hides why (a certificate not trusted, a refused password): name the root too
	private static String why(@Nullable Throwable failure) {
		Throwable root = failure;
		while (root != null && root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		return (root == failure) ? String.valueOf(failure) : failure + ", caused by " + root;
	}

	private static void parse(String text, Map<String, String> values) {
		for (String line : text.split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && !line.startsWith("#")) {
				values.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
			}
		}
	}

	/**
	 * Asks a node until it answers or the checks' time is up: a command that failed in a way worth asking again
	 * ({@link #worthAskingAgain}) is asked again after a short pause.
	 * @throws CompletionException the last failure, once the time is up
	 */
	private static <T> T untilDeadline(Supplier<CompletableFuture<T>> command, long deadline) {
		while (true) {
			try {
				return command.get().join();
			}
			catch (CompletionException ex) {
				if (System.nanoTime() - deadline >= 0 || !worthAskingAgain(ex.getCause())) {
					throw ex;
				}
			}
			try {
				Thread.sleep(RETRY_PAUSE_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new CompletionException(ex);
			}
		}
	}

	/**
	 * Whether a failure can pass if asked again: a command cut short by the per-node timeout, or refused while the
	 * connection reopens. A refused connection, a refused password or an error reply would only repeat (and a
	 * node that is down must not hold the startup for long: Redlock starts without it).
	 */
	private static boolean worthAskingAgain(@Nullable Throwable failure) {
		return failure instanceof TimeoutException || failure instanceof RedisCommandTimeoutException
				|| (failure != null && failure.getClass() == RedisException.class);
	}

	private static void logPersistence(RedlockNode node, long deadline) {
		@Nullable String appendonly;
		@Nullable String fsync;
		try {
			appendonly = untilDeadline(() -> node.config("appendonly"), deadline);
			fsync = untilDeadline(() -> node.config("appendfsync"), deadline);
		}
		catch (CompletionException ex) {
			logger.warn("Redlock node " + node.name() + ": its persistence cannot be read (CONFIG GET refused: "
					+ ex.getCause().getMessage() + "); if it restarts without its data, restart it only after the "
					+ "longest lease (see docs/redlock.md)");
			return;
		}
		if ("yes".equals(appendonly) && "always".equals(fsync)) {
			logger.info("Redlock node " + node.name() + " persists every write (appendonly yes, appendfsync always): "
					+ "a restart keeps its locks");
			return;
		}
		logger.warn("Redlock node " + node.name() + " persists with appendonly " + appendonly + ", appendfsync "
				+ fsync + ": a crash and restart can lose locks and token counters it granted; restart it only after "
				+ "the longest lease has passed (redis.io's delayed restart), or set appendfsync always "
				+ "(see docs/redlock.md)");
	}

}
