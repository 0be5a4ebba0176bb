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

/**
 * Wakes local waiters when a lock is released anywhere. One Redis subscription per client serves every waiter
 * of every lock, on two channels:
 * <ul>
 * <li>the release channel, shared by all clients: read/write release scripts publish the released lock's Redis
 * key there, and each message wakes the waiters of that key in this JVM, which then try again;</li>
 * <li>this client's grant channel, {@code <release channel>:<client id>}: a reentrant release that grants the
 * lock (or a semaphore's permit) to a waiter of this client publishes
 * {@code "<owner id> <wait id> <fencing token> <key>"} there, and the message wakes
 * only that wait, which then holds the lock (see {@code reentrant_common.lua}).</li>
 * </ul>
 * <p>
 * A waiter registers before it tries the lock, so a release between a failed try and the wait is not
 * missed. A lost message (a broken subscription) only delays a waiter until the holder's lease ends,
 * when it retries anyway; {@link ReleaseSubscription} keeps the subscription up, and a reconnect wakes every
 * waiter. Thread-safe.
 */
final class ReleaseNotifications implements MessageListener, AutoCloseable {

	/** The waiters of each key, replaced (never changed) under the map's compute: usually one per key. */
	private final ConcurrentHashMap<String, ReleaseWaiter[]> waitersByKey = new ConcurrentHashMap<>();

	private static final Log logger = LogFactory.getLog(ReleaseNotifications.class);

	private final String grantChannel;

	private final ReleaseSubscription subscription;

	/**
	 * Starts subscribing on the scheduler: an unreachable Redis is logged, not thrown.
	 * @param connectionFactory the Redis connections; one more is opened for the subscription
	 * @param keyPrefix the key prefix, for the ACL rule a refusal's log names
	 * @param channel the channel release scripts publish on
	 * @param clientId the client's id: grants to its waiters come on {@code <channel>:<clientId>}
	 * @param scheduler runs the subscription attempts; owned by the caller
	 */
	ReleaseNotifications(RedisConnectionFactory connectionFactory, String keyPrefix, String channel, String clientId,
			ScheduledExecutorService scheduler) {
		this.grantChannel = channel + ":" + clientId;
		// what was published during a reconnect (a grant, a release) is lost: a try at once finds it
		this.subscription = new ReleaseSubscription(connectionFactory, keyPrefix, channel, this.grantChannel, this,
				this::wakeAll, scheduler);
	}

	/**
	 * Counts the connections of the client's Lettuce client that broke so far (see
	 * {@link ReleaseSubscription#disconnects()}).
	 * @return the number of broken connections
	 */
	long disconnects() {
		return this.subscription.disconnects();
	}

	/** Wakes every local waiter of every key. */
	void wakeAll() {
		for (ReleaseWaiter[] waiters : this.waitersByKey.values()) {
			for (ReleaseWaiter waiter : waiters) {
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
	 * @param waitId the number a grant to this wait carries (see {@link ReleaseWaiter#isGranted()})
	 * @return the waiter, to be {@linkplain #unregister(ReleaseWaiter) unregistered} in a {@code finally}
	 */
	ReleaseWaiter register(String redisKey, long waitId) {
		this.subscription.waiterRegistered();
		ReleaseWaiter waiter = new ReleaseWaiter(redisKey, waitId);
		this.waitersByKey.compute(redisKey, (key, waiters) -> {
			if (waiters == null) {
				return new ReleaseWaiter[] { waiter };
			}
			ReleaseWaiter[] more = Arrays.copyOf(waiters, waiters.length + 1);
			more[waiters.length] = waiter;
			return more;
		});
		return waiter;
	}

	void unregister(ReleaseWaiter waiter) {
		this.waitersByKey.computeIfPresent(waiter.redisKey, (key, waiters) -> {
			if (waiters.length == 1) {
				return (waiters[0] == waiter) ? null : waiters;
			}
			ReleaseWaiter[] fewer = new ReleaseWaiter[waiters.length - 1];
			int kept = 0;
			for (ReleaseWaiter other : waiters) {
				if (other != waiter && kept < fewer.length) {
					fewer[kept++] = other;
				}
			}
			return (kept == fewer.length) ? fewer : waiters;
		});
	}

	/**
	 * Wakes every local waiter of {@code redisKey}.
	 * @param redisKey the lock's Redis key
	 */
	void wake(String redisKey) {
		ReleaseWaiter[] waiters = this.waitersByKey.get(redisKey);
		if (waiters != null) {
			for (ReleaseWaiter waiter : waiters) {
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
			logger.warn("Ignored a malformed lock grant on channel '" + this.grantChannel + "': " + grant);
			return;
		}
		ReleaseWaiter[] waiters = this.waitersByKey.get(grant.substring(afterToken + 1));
		if (waiters != null) {
			for (ReleaseWaiter waiter : waiters) {
				if (waiter.waitId == waitId) {
					waiter.grantedToken = token;
					waiter.granted = true;
					waiter.signal();
				}
			}
		}
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		String body = new String(message.getBody(), StandardCharsets.UTF_8);
		if (this.grantChannel.equals(new String(message.getChannel(), StandardCharsets.UTF_8))) {
			granted(body);
		}
		else {
			wake(body);
		}
	}

	int waitingKeys() {
		return this.waitersByKey.size();
	}

	/** Stops the subscription. */
	@Override
	public void close() {
		this.subscription.close();
	}

}
