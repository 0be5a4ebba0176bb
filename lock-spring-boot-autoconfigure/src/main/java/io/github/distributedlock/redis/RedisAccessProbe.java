package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Checks that the Redis user may do what the locks do, so that a missing ACL permission fails the startup instead
 * of the first lock call that needs it (or, for a notification, a release under contention): runs a script with
 * {@code EVAL} and {@code EVALSHA} that calls every command the lock scripts call on a key under the key prefix
 * and publishes on the release channels, then subscribes to them once, in the client's {@link NotificationMode}. What Redis refuses is thrown as a
 * {@link MissingRedisPermissionException} with the ACL rule to give the user. Then, when made with an
 * {@link EvictionCheck}, reads the server's eviction policy ({@code CONFIG GET maxmemory*}, on every node of a
 * cluster) and has it judged: a server that may evict lock keys is an {@link EvictingRedisException}. Any other
 * failure (Redis unreachable, a wrong password, an untrusted certificate) is not this check's business: Redis may
 * come up or be fixed later, and the client's subscription reports it. Leaves nothing in Redis. Run it before the
 * lock client subscribes: with Jedis, a subscription that Redis refused can leave its reply on a pooled
 * connection. Not thread-safe; run it once.
 */
public final class RedisAccessProbe {

	/** How long {@link #check()} waits for Redis at most. */
	public static final Duration MAX_WAIT = Duration.ofSeconds(5);

	private static final Log logger = LogFactory.getLog(RedisAccessProbe.class);

	private final RedisConnectionFactory connectionFactory;

	private final String keyPrefix;

	/** The release channel in the probe key's slot (the classic one, or the sharded one of that slot). */
	private final String channel;

	private final NotificationMode mode;

	/** Names the server in the eviction check's messages, such as {@code localhost:6379}. */
	private final String server;

	/** Judges the server's eviction policy; {@code null} to leave it unread. */
	private final @Nullable EvictionCheck eviction;

	/**
	 * Creates the probe of classic notifications.
	 * @param connectionFactory the connections the locks use
	 * @param keyPrefix the key prefix of the locks (their release channel is {@code <keyPrefix>__released})
	 */
	public RedisAccessProbe(RedisConnectionFactory connectionFactory, String keyPrefix) {
		this(connectionFactory, keyPrefix, NotificationMode.CLASSIC);
	}

	/**
	 * Creates the probe of a notification mode: with {@link NotificationMode#SHARDED}, it publishes with
	 * {@code SPUBLISH} and subscribes with {@code SSUBSCRIBE}, on the sharded channels of the probe key's slot.
	 * @param connectionFactory the connections the locks use
	 * @param keyPrefix the key prefix of the locks
	 * @param mode the mode the lock client uses; {@link NotificationMode#AUTO} is resolved here (see
	 * {@link NotificationMode#resolve})
	 * @throws IllegalArgumentException if the mode is sharded and the factory is not Lettuce's for a cluster
	 */
	public RedisAccessProbe(RedisConnectionFactory connectionFactory, String keyPrefix, NotificationMode mode) {
		this(connectionFactory, keyPrefix, mode, "", null);
	}

	/**
	 * Creates the probe of a notification mode that also has the server's eviction policy judged, after the
	 * permissions and within the same {@link #MAX_WAIT}.
	 * @param connectionFactory the connections the locks use
	 * @param keyPrefix the key prefix of the locks
	 * @param mode the mode the lock client uses (see {@link #RedisAccessProbe(RedisConnectionFactory, String,
	 * NotificationMode)})
	 * @param server names the server in the eviction check's messages, such as {@code localhost:6379} (a cluster's
	 * nodes are named by their addresses)
	 * @param eviction judges the eviction policy; {@code null} to leave it unread
	 * @throws IllegalArgumentException if the mode is sharded and the factory is not Lettuce's for a cluster
	 */
	public RedisAccessProbe(RedisConnectionFactory connectionFactory, String keyPrefix, NotificationMode mode,
			String server, @Nullable EvictionCheck eviction) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
		this.mode = mode.resolve(connectionFactory, keyPrefix);
		this.channel = new NotificationChannels(keyPrefix, this.mode).of(probeKey());
		this.server = Objects.requireNonNull(server, "server must not be null");
		this.eviction = eviction;
	}

	private String probeKey() {
		return this.keyPrefix + "__probe";
	}

	/**
	 * Runs the check; takes a few round trips. Waits at most {@link #MAX_WAIT} for it: a connection that hangs
	 * (a TLS handshake against a plaintext port, a server that never answers) must not hold up the startup, and
	 * then nothing is checked.
	 * @throws MissingRedisPermissionException if Redis refused something the locks need
	 * @throws EvictingRedisException if the probe has an {@link EvictionCheck} and the server may evict lock keys
	 * (unless the check allows it)
	 */
	public void check() {
		CompletableFuture<Void> checked = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				checkNow();
				checked.complete(null);
			}
			catch (RuntimeException ex) {
				checked.completeExceptionally(ex);
			}
		}, "distributed-lock-probe");
		thread.setDaemon(true);
		thread.start();
		try {
			checked.get(MAX_WAIT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			throw ScriptExecutor.unwrap(ex);
		}
		catch (TimeoutException ex) {
			logger.info("Redis did not answer the check of its user's permissions and eviction policy within "
					+ MAX_WAIT.toSeconds() + " s; the startup goes on without it");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void checkNow() {
		if (checkPermissions() && this.eviction != null) {
			checkEviction(this.eviction);
		}
	}

	/**
	 * Reads the eviction policy and has it judged: with a cluster factory, Spring Data Redis asks every node and
	 * names each in the reply's keys. {@code CONFIG} cannot run in a script, so this is a command of its own.
	 */
	private void checkEviction(EvictionCheck eviction) {
		Properties config;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			config = connection.serverCommands().getConfig("maxmemory*");
		}
		catch (RuntimeException ex) {
			if (RedisFailures.ranNothing(ex) && !RedisFailures.isPermissionDenied(ex)) {
				logger.debug("Redis eviction policy not checked: " + RedisFailures.describe(ex));
				return;
			}
			eviction.notReadable(this.server, ex);
			return;
		}
		eviction.judge(this.server, (config != null) ? config : new Properties());
	}

	/**
	 * Checks the permissions.
	 * @return {@code true} if Redis answered; {@code false} if it could not be reached (nothing checked)
	 * @throws MissingRedisPermissionException if Redis refused something
	 */
	private boolean checkPermissions() {
		List<String> refusals = new ArrayList<>();
		ScriptTransport transport = ScriptTransport.of(this.connectionFactory);
		byte[][] keysAndArgs = { bytes(probeKey()), bytes(this.channel), bytes(this.channel + ":probe") };
		// EVAL first (the script's text), then EVALSHA, which then finds it: the client sends both
		for (boolean sendText : new boolean[] { true, false }) {
			Object reply;
			try {
				reply = ScriptExecutor.await(transport.eval(LockScripts.PROBE, true, sendText, 1, keysAndArgs));
			}
			catch (RuntimeException ex) {
				Throwable failure = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
				if (!RedisFailures.isPermissionDenied(failure)) {
					logger.debug("Redis permissions not checked: " + RedisFailures.describe(failure));
					return false;
				}
				refusals.add((sendText ? "eval" : "evalsha") + " of the lock scripts on key '" + this.keyPrefix
						+ "__probe': " + RedisFailures.describe(failure));
				continue;
			}
			if (reply instanceof List<?> list) {
				for (Object refusal : list) {
					String words = (refusal instanceof byte[] raw) ? new String(raw, StandardCharsets.UTF_8)
							: String.valueOf(refusal);
					if (words.contains(": ") && !refusals.contains(words)) {
						refusals.add(words);
					}
				}
			}
		}
		String subscribeRefusal = subscribeRefusal();
		if (subscribeRefusal != null) {
			refusals.add(subscribeRefusal);
		}
		if (!refusals.isEmpty()) {
			throw new MissingRedisPermissionException(refusals, RedisPermissions.aclRule(this.keyPrefix, this.mode));
		}
		return true;
	}

	/** Subscribes to the release channels once; returns what Redis refused, or {@code null}. */
	private @Nullable String subscribeRefusal() {
		if (this.mode == NotificationMode.SHARDED) {
			try {
				ShardedSubscribeCheck.subscribeOnce((LettuceConnectionFactory) this.connectionFactory, this.channel,
						this.channel + ":probe");
				return null;
			}
			catch (RuntimeException ex) {
				if (RedisFailures.isPermissionDenied(ex)) {
					return "ssubscribe to channel '" + this.channel + "': " + RedisFailures.describe(ex);
				}
				logger.debug("Redis permission to subscribe not checked: " + RedisFailures.describe(ex));
				return null;
			}
		}
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(this.connectionFactory);
		container.setTaskExecutor(Runnable::run);
		// with a blocking client (Jedis) the subscription holds its thread until it ends: not the caller's
		SimpleAsyncTaskExecutor subscriptionThread = new SimpleAsyncTaskExecutor("distributed-lock-probe-");
		subscriptionThread.setDaemon(true);
		container.setSubscriptionExecutor(subscriptionThread);
		container.addMessageListener((message, pattern) -> {
		}, List.of(new ChannelTopic(this.channel), new ChannelTopic(this.channel + ":probe")));
		try {
			container.afterPropertiesSet();
			container.start();
			return null;
		}
		catch (RuntimeException ex) {
			if (RedisFailures.isPermissionDenied(ex)) {
				return "subscribe to channel '" + this.channel + "': " + RedisFailures.describe(ex);
			}
			logger.debug("Redis permission to subscribe not checked: " + RedisFailures.describe(ex));
			return null;
		}
		finally {
			try {
				container.destroy();
			}
			catch (Exception ex) {
				// a failed subscription has nothing to close
			}
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
