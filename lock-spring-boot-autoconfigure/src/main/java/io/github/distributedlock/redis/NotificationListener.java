package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Wakes local waiters when a lock is released anywhere. Notifications come on two kinds of channels (see
 * {@link NotificationChannels} for their names in each {@link NotificationMode}):
 * <ul>
 * <li>release channels, shared by all clients: read/write release scripts publish the released lock's Redis
 * key there, and each message wakes the waiters of that key in this JVM, which then try again;</li>
 * <li>this client's grant channels, {@code <release channel>:<client id>}: a reentrant release that grants the
 * lock (or a semaphore's permit) to a waiter of this client publishes
 * {@code "<owner id> <wait id> <fencing token> <key>"} there, and the message wakes
 * only that wait, which then holds the lock (see {@code reentrant_common.lua}).</li>
 * </ul>
 * Classic mode: one subscription per client serves every waiter of every lock ({@link ClassicSubscription}).
 * Sharded mode: the client subscribes to the channels of the hash slots its waiters wait on
 * ({@link ShardedSubscription}).
 * <p>
 * A waiter registers before it tries the lock, so a release between a failed try and the wait is not
 * missed. A lost message (a broken subscription) only delays a waiter until the holder's lease ends,
 * when it retries anyway; {@link ClassicSubscription} keeps the subscription up, and a reconnect wakes every
 * waiter. Thread-safe.
 */
final class NotificationListener implements MessageListener, AutoCloseable {

	/** The waiters of each key, replaced (never changed) under the map's compute: usually one per key. */
	private final ConcurrentHashMap<String, NotificationWaiter[]> waitersByKey = new ConcurrentHashMap<>();

	/**
	 * The log category of the notifications' lines: the one they have always had (the name this class had before
	 * the release command and the release notifications got names of their own).
	 */
	static final String LOG_CATEGORY = "io.github.distributedlock.redis.ReleaseNotifications";

	private static final Log logger = LogFactory.getLog(LOG_CATEGORY);

	/** How every grant channel of this client ends: {@code :<client id>}; no release channel ends so. */
	private final String grantSuffix;

	private final NotificationSubscription subscription;

	/** Wakes every waiter when a Lettuce connection is made again, or {@code null}; disposed of on close. */
	private final @Nullable AutoCloseable reconnects;

	/**
	 * Starts subscribing on the scheduler: an unreachable Redis is logged, not thrown.
	 * @param connectionFactory the Redis connections; one more is opened for the subscription (in sharded mode,
	 * one per primary it subscribes on)
	 * @param keyPrefix the key prefix, for the ACL rule a refusal's log names
	 * @param channels the channels, in the client's mode
	 * @param clientId the client's id: grants to its waiters come on {@code <release channel>:<clientId>}
	 * @param scheduler runs the subscription attempts; owned by the caller
	 * @param breaks told of every broken connection of a Lettuce client
	 */
	NotificationListener(RedisConnectionFactory connectionFactory, String keyPrefix, NotificationChannels channels,
			String clientId, ScheduledExecutorService scheduler, ConnectionBreaks breaks) {
		this.grantSuffix = ":" + clientId;
		// only with Lettuce: its event bus tells of reconnects
		this.reconnects = ClassUtils.isPresent("io.lettuce.core.RedisClient", getClass().getClassLoader())
				? LettuceReconnects.listen(connectionFactory, this::wakeAll, breaks::broke) : null;
		this.subscription = channels.isSharded()
				? new ShardedSubscription((LettuceConnectionFactory) connectionFactory, channels, clientId,
						new ShardedSubscription.Listener() {

							@Override
							public void onMessage(String channel, String body) {
								received(channel, body);
							}

							@Override
							public void slotChanged(int slot) {
								wakeSlot(slot);
							}

						}, scheduler)
				: new ClassicSubscription(connectionFactory, keyPrefix, channels.classic(),
						channels.classic() + this.grantSuffix, this, scheduler);
	}

	/**
	 * Wakes every local waiter of the keys of a hash slot: its sharded subscription was made or lost.
	 * @param slot the hash slot
	 */
	void wakeSlot(int slot) {
		this.waitersByKey.forEach((key, waiters) -> {
			if (ClusterSlots.of(key) == slot) {
				for (NotificationWaiter waiter : waiters) {
					waiter.signal();
				}
			}
		});
	}

	/** Wakes every local waiter of every key. */
	void wakeAll() {
		for (NotificationWaiter[] waiters : this.waitersByKey.values()) {
			for (NotificationWaiter waiter : waiters) {
				waiter.signal();
			}
		}
	}

	/**
	 * Tells whether the subscription is up.
	 * @return {@code true} while release notifications arrive
	 */
	boolean isListening() {
		return this.subscription.isListening();
	}

	/**
	 * Registers a waiter for {@code redisKey}.
	 * @param redisKey the lock's Redis key
	 * @param waitId the number a grant to this wait carries (see {@link NotificationWaiter#isGranted()})
	 * @return the waiter, to be {@linkplain #unregister(NotificationWaiter) unregistered} in a {@code finally}
	 */
	NotificationWaiter register(String redisKey, long waitId) {
		// the subscription learns of the key when the waiter first waits: its first try did not get the lock; a
		// sharded subscription made then wakes it, so a release between that try and the subscription is not missed
		NotificationWaiter waiter = new NotificationWaiter(redisKey, waitId, () -> this.subscription.waiterRegistered(redisKey));
		this.waitersByKey.compute(redisKey, (key, waiters) -> {
			if (waiters == null) {
				return new NotificationWaiter[] { waiter };
			}
			NotificationWaiter[] more = Arrays.copyOf(waiters, waiters.length + 1);
			more[waiters.length] = waiter;
			return more;
		});
		return waiter;
	}

	/**
	 * Unregisters a waiter; a second call does nothing.
	 * @param waiter a registered waiter
	 */
	void unregister(NotificationWaiter waiter) {
		boolean[] removed = { false };
		this.waitersByKey.computeIfPresent(waiter.redisKey, (key, waiters) -> {
			if (waiters.length == 1) {
				removed[0] = waiters[0] == waiter;
				return removed[0] ? null : waiters;
			}
			NotificationWaiter[] fewer = new NotificationWaiter[waiters.length - 1];
			int kept = 0;
			for (NotificationWaiter other : waiters) {
				if (other != waiter && kept < fewer.length) {
					fewer[kept++] = other;
				}
			}
			removed[0] = kept == fewer.length;
			return removed[0] ? fewer : waiters;
		});
		if (removed[0] && waiter.end()) {
			this.subscription.waiterUnregistered(waiter.redisKey);
		}
	}

	/**
	 * Wakes every local waiter of {@code redisKey}.
	 * @param redisKey the lock's Redis key
	 */
	void wake(String redisKey) {
		NotificationWaiter[] waiters = this.waitersByKey.get(redisKey);
		if (waiters != null) {
			for (NotificationWaiter waiter : waiters) {
				waiter.signal();
			}
		}
	}

	/**
	 * Wakes the wait a grant names: it holds the lock now, with the grant's fencing token.
	 * @param grant {@code "<owner id> <wait id> <token> <key>"}, as published by {@code reentrant_common.lua}
	 */
	void granted(String grant) {
		int afterOwner = grant.indexOf(' ');
		int afterWaitId = grant.indexOf(' ', afterOwner + 1);
		int afterToken = grant.indexOf(' ', afterWaitId + 1);
		long waitId;
		long token;
		try {
			if (afterOwner < 0 || afterWaitId < 0 || afterToken < 0) {
				throw new NumberFormatException();
			}
			waitId = Long.parseLong(grant, afterOwner + 1, afterWaitId, 10);
			token = Long.parseLong(grant, afterWaitId + 1, afterToken, 10);
		}
		catch (NumberFormatException ex) {
			logger.warn("Ignored a malformed lock grant: " + grant);
			return;
		}
		NotificationWaiter[] waiters = this.waitersByKey.get(grant.substring(afterToken + 1));
		if (waiters != null) {
			for (NotificationWaiter waiter : waiters) {
				if (waiter.waitId == waitId) {
					waiter.grant(token);
				}
			}
		}
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		received(new String(message.getChannel(), StandardCharsets.UTF_8),
				new String(message.getBody(), StandardCharsets.UTF_8));
	}

	/** A message on a release channel or on one of this client's grant channels. */
	private void received(String channel, String body) {
		if (channel.endsWith(this.grantSuffix)) {
			granted(body);
		}
		else {
			wake(body);
		}
	}

	int waitingKeys() {
		return this.waitersByKey.size();
	}

	/** Stops listening for reconnects, and the subscription. */
	@Override
	public void close() {
		if (this.reconnects != null) {
			try {
				this.reconnects.close();
			}
			catch (Exception ex) {
				// nothing to do
			}
		}
		this.subscription.close();
	}

}
