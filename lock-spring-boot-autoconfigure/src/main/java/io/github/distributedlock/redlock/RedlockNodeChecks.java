package io.github.distributedlock.redlock;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.github.distributedlock.redis.EvictingRedisException;
import io.github.distributedlock.redis.EvictionCheck;
import io.github.distributedlock.redis.MissingRedisPermissionException;
import io.github.distributedlock.redis.RedisPermissions;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The startup checks of the Redlock nodes. Each must be an independent primary, so a node that is another node's
 * server again ({@code run_id}), a replica ({@code INFO replication} role) or a member of a Redis Cluster
 * ({@code cluster_enabled}) is refused, with the node named. Each node's user must have what the Redlock scripts
 * need (a probe script sent with {@code EVAL} and {@code EVALSHA}, and the client's subscription to the release
 * channel): what a node refuses fails the startup with a {@link MissingRedisPermissionException} naming the node,
 * what it refused and the ACL rule ({@link RedisPermissions#redlockAclRule}). A node that may evict lock keys
 * ({@code maxmemory} with a policy other than {@code noeviction}) fails it with an {@link EvictingRedisException},
 * unless allowed ({@link EvictionCheck}). Per node, a log line says whether it persists ({@code appendonly},
 * {@code appendfsync}), and a WARN where a restart could lose a lock. A node that cannot be reached within
 * {@link #CONNECT_WAIT_SECONDS} (its connection not open, or its commands not answered: each is bounded by the
 * per-node timeout, and asked again until then) is WARNed about and not checked (Redlock works while a majority
 * answers); a node that refuses the credentials in its URL is told by its {@link RedlockNodeState}, as the
 * configuration error it is. Not thread-safe: runs once.
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

	private final List<RedlockNode> nodes;

	private final int quorum;

	private final String keyPrefix;

	private final RedlockNotifications notifications;

	private final EvictionCheck eviction;

	/** When the checks' time is up, a {@link System#nanoTime()} value; set when they start. */
	private long deadline;

	/**
	 * Prepares the checks.
	 * @param nodes the nodes
	 * @param settings the settings: the quorum for the log, the key prefix for the probe
	 * @param notifications the client's release notifications, whose subscriptions show the channel permission
	 * @param eviction judges each node's eviction policy
	 */
	RedlockNodeChecks(List<RedlockNode> nodes, RedlockSettings settings, RedlockNotifications notifications,
			EvictionCheck eviction) {
		this.nodes = nodes;
		this.quorum = settings.quorum();
		this.keyPrefix = settings.keyPrefix();
		this.notifications = notifications;
		this.eviction = eviction;
	}

	/**
	 * Checks every node, in turn.
	 * @throws IllegalStateException if a node is refused; the message names it and says why
	 * @throws MissingRedisPermissionException if a node's user lacks a permission the store needs
	 * @throws EvictingRedisException if a node may evict lock keys and that is not allowed
	 */
	void check() {
		if (this.nodes.size() % 2 == 0) {
			logger.warn("Redlock over " + this.nodes.size() + " nodes: an even number tolerates no more failures "
					+ "than " + (this.nodes.size() - 1) + " nodes (quorum " + this.quorum + "); an odd number is "
					+ "recommended");
		}
		this.deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CONNECT_WAIT_SECONDS);
		awaitConnections(this.nodes);
		Map<String, String> runIds = new HashMap<>();
		List<String> refusals = new ArrayList<>();
		EvictingRedisException evicting = null;
		for (int i = 0; i < this.nodes.size(); i++) {
			RedlockNode node = this.nodes.get(i);
			Map<String, String> info = info(node);
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
			refusals.addAll(refusals(node, i));
			try {
				checkEviction(node);
			}
			catch (EvictingRedisException ex) {
				evicting = (evicting != null) ? evicting : ex;
			}
			logPersistence(node);
		}
		if (!refusals.isEmpty()) {
			throw new MissingRedisPermissionException(
					"The Redis user of the Redlock nodes (the user in each URL of distributed-lock.redlock.nodes)",
					refusals, RedisPermissions.redlockAclRule(this.keyPrefix));
		}
		if (evicting != null) {
			throw evicting;
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

	private @Nullable Map<String, String> info(RedlockNode node) {
		try {
			Map<String, String> values = new HashMap<>();
			for (String section : List.of("server", "replication", "cluster")) {
				parse(untilDeadline(() -> node.info(section)), values);
			}
			return values;
		}
		catch (CompletionException ex) {
			if (RedlockNodeState.isCredentialRefusal(ex)) {
				// the node's state told it at ERROR: a wrong user or password is no outage that passes
				return null;
			}
			if (RedlockNodeState.isPermissionRefusal(ex)) {
				logger.warn("Redlock node " + node.name() + ": its user may not run INFO (" + why(ex.getCause())
						+ "), so whether it is a replica, a Cluster member or another node's server again is not "
						+ "checked; give the user +info (see docs/redlock.md#acl-users)");
				return Map.of();
			}
			logger.warn("Redlock node " + node.name() + " cannot be reached at startup (" + why(ex.getCause())
					+ "); it is not checked, and votes once it answers");
			return null;
		}
	}

	/**
	 * Runs the probe script with {@code EVAL}, then with {@code EVALSHA} (which then finds it), and waits for the
	 * client's subscription to the release channel.
	 * @return what the node refused, each naming the node, the operation and Redis's words; empty if nothing
	 */
	private List<String> refusals(RedlockNode node, int index) {
		List<String> refusals = new ArrayList<>();
		String where = "Redlock node " + node.name() + ": ";
		String[] keys = { this.keyPrefix + "__probe", this.keyPrefix + "__probe~token" };
		String channel = RedlockKeys.channel(this.keyPrefix);
		for (boolean sendText : new boolean[] { true, false }) {
			Object reply;
			try {
				reply = untilDeadline(() -> sendText ? node.evalText(RedlockScript.PROBE, keys, channel)
						: node.eval(RedlockScript.PROBE, keys, channel));
			}
			catch (CompletionException ex) {
				if (RedlockNodeState.isPermissionRefusal(ex)) {
					refusals.add(where + (sendText ? "eval" : "evalsha") + " of the Redlock scripts on key '"
							+ keys[0] + "': " + ex.getCause().getMessage());
				}
				continue;
			}
			if (reply instanceof List<?> list) {
				for (Object refusal : list) {
					String words = where + refusal;
					if (!refusals.contains(words)) {
						refusals.add(words);
					}
				}
			}
		}
		try {
			this.notifications.subscription(index).get(remainingNanos(), TimeUnit.NANOSECONDS);
		}
		catch (ExecutionException ex) {
			if (RedlockNodeState.isPermissionRefusal(ex)) {
				refusals.add(where + "subscribe to channel '" + channel + "': " + why(ex.getCause()));
			}
		}
		catch (TimeoutException ex) {
			// not subscribed in time: the subscription WARNs by itself if it fails later
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return refusals;
	}

	private void checkEviction(RedlockNode node) {
		Map<String, String> config;
		try {
			config = untilDeadline(() -> node.configs("maxmemory*"));
		}
		catch (CompletionException ex) {
			this.eviction.notReadable("Redlock node " + node.name(), ex.getCause());
			return;
		}
		this.eviction.judge("Redlock node " + node.name(), config);
	}

	private long remainingNanos() {
		return Math.max(0, this.deadline - System.nanoTime());
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
	private <T> T untilDeadline(Supplier<CompletableFuture<T>> command) {
		while (true) {
			try {
				return command.get().join();
			}
			catch (CompletionException ex) {
				if (System.nanoTime() - this.deadline >= 0 || !worthAskingAgain(ex.getCause())) {
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

	private void logPersistence(RedlockNode node) {
		@Nullable String appendonly;
		@Nullable String fsync;
		try {
			appendonly = untilDeadline(() -> node.config("appendonly"));
			fsync = untilDeadline(() -> node.config("appendfsync"));
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
