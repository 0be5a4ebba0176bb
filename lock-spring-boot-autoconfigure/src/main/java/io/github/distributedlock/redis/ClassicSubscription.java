package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Keeps the classic subscription of {@link NotificationListener} to the release and grant channels up.
 * A lost message only delays a waiter until the holder's lease ends, so Redis
 * being down when the client starts does not fail the start, and the first subscription is made on the client's
 * scheduler, not on the thread that creates the client. The subscription is checked every second on the scheduler
 * and when a waiter registers, and made again when it is down; this is the only recovery, the container's own is
 * off (its retries run recursively on the caller's thread). Failed attempts back off (1 s, doubling, at most
 * {@link #MAX_RETRY_NANOS}); the first failure of a series is one WARN with the root cause's own words
 * ({@code WRONGPASS ...}, {@code PKIX path building failed ...}), the next are counted at DEBUG, and the
 * subscription that ends the series says at INFO how many attempts failed. A waiter that registers brings the
 * next attempt forward, to a second after the last one. Thread-safe.
 */
final class ClassicSubscription implements NotificationSubscription {

	/** Logs as {@link NotificationListener}, the category the documentation names for these messages. */
	private static final Log logger = LogFactory.getLog(NotificationListener.LOG_CATEGORY);

	private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** The longest pause between failed subscription attempts. */
	static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(16);

	/**
	 * How long {@link #close()} waits for the container to stop. Its stop waits for a subscription attempt under
	 * way, and Lettuce's connect of a pub/sub connection waits without a timeout of its own: on a frozen server up
	 * to a command timeout, and for ever when the connection factory was stopped during the connect.
	 */
	static final long CLOSE_WAIT_MILLIS = 2000;

	private final RedisMessageListenerContainer container;

	private final String channel;

	private final ReentrantLock subscribing = new ReentrantLock();

	/** Runs the subscription attempts: never the caller's thread, which may be Lettuce's I/O thread. */
	private final ScheduledExecutorService scheduler;

	private final String keyPrefix;

	private final RedisConnectionFactory connectionFactory;

	private volatile long nextAttempt;

	/** Whether a subscription was attempted before; changed under {@link #subscribing}. */
	private boolean attempted;

	/** When the last attempt started ({@link System#nanoTime()}). */
	private volatile long lastAttempt;

	/** Failed attempts since the subscription was last made; changed under {@link #subscribing}. */
	private int failures;

	private volatile boolean closed;

	/**
	 * Starts subscribing on the scheduler: an unreachable Redis is logged, not thrown.
	 * @param connectionFactory the Redis connections; one more is opened for the subscription
	 * @param keyPrefix the key prefix, for the ACL rule a refusal's log names
	 * @param channel the channel release scripts publish on
	 * @param grantChannel the channel grants to this client's waiters come on
	 * @param listener gets the messages of both channels, on the connection's thread
	 * @param scheduler runs the subscription attempts; owned by the caller
	 */
	ClassicSubscription(RedisConnectionFactory connectionFactory, String keyPrefix, String channel,
			String grantChannel, MessageListener listener, ScheduledExecutorService scheduler) {
		this.keyPrefix = keyPrefix;
		this.connectionFactory = connectionFactory;
		this.channel = channel;
		this.container = new RedisMessageListenerContainer();
		this.container.setConnectionFactory(connectionFactory);
		// the listener only releases semaphores: run it on the connection's thread, no thread per message
		this.container.setTaskExecutor(Runnable::run);
		// not the scheduler: with a blocking client (Jedis) the subscription holds its thread for as long as it
		// listens, and the watchdog's renewals must not wait behind it
		SimpleAsyncTaskExecutor subscriptionThreads = new SimpleAsyncTaskExecutor("distributed-lock-subscription-");
		subscriptionThreads.setDaemon(true);
		this.container.setSubscriptionExecutor(subscriptionThreads);
		this.container.setRecoveryBackoff(new FixedBackOff(0, 0));
		this.container.addMessageListener(listener, List.of(new ChannelTopic(channel), new ChannelTopic(grantChannel)));
		this.container.afterPropertiesSet();
		this.scheduler = scheduler;
		this.nextAttempt = System.nanoTime();
		this.lastAttempt = this.nextAttempt - RETRY_NANOS;
		// not on the caller's thread: an application's startup must not wait for a connect attempt
		scheduler.execute(this::subscribe);
		scheduler.scheduleWithFixedDelay(this::subscribe, 1, 1, TimeUnit.SECONDS);
	}

	@Override
	public boolean isListening() {
		return this.container.isListening();
	}

	/**
	 * If the subscription is down, an attempt runs on the scheduler as soon as a second has passed since the last
	 * one.
	 */
	@Override
	public void waiterRegistered(String redisKey) {
		if (!this.closed && !this.container.isListening()) {
			// on the subscription's thread: a connect attempt may block for a while
			try {
				this.scheduler.execute(() -> subscribe(true));
			}
			catch (RejectedExecutionException ex) {
				// closed meanwhile
			}
		}
	}

	/** Makes the subscription unless it is made, or the pause after the last failed attempt is not over. */
	private void subscribe() {
		subscribe(false);
	}

	/**
	 * Makes the subscription if it is not made, no other thread is making it, and the pause after the last failed
	 * attempt is over; or, for a waiter ({@code waiting}), a second has passed since the last attempt: a waiter
	 * would be woken sooner, and the log stays quiet either way.
	 */
	private void subscribe(boolean waiting) {
		long now = System.nanoTime();
		long notBefore = waiting ? this.lastAttempt + RETRY_NANOS : this.nextAttempt;
		if (this.closed || this.container.isListening() || now - notBefore < 0 || !this.subscribing.tryLock()) {
			return;
		}
		try {
			if (!this.closed && !this.container.isListening()) {
				this.lastAttempt = System.nanoTime();
				// a failed or lost subscription leaves the container 'started': reset it first
				this.container.stop();
				checkConnection();
				this.container.start();
				subscribed();
			}
		}
		catch (RuntimeException ex) {
			this.container.stop();
			failed(ex);
		}
		finally {
			this.subscribing.unlock();
		}
	}

	/**
	 * Fails when no connection can be had, or the user may not use the release channel, before the container
	 * tries: the container logs each failed attempt as an ERROR with a stack trace, and this class's own WARN
	 * (once per series) is enough; and with Jedis, a subscription that Redis refused can leave its reply on a
	 * pooled connection, where a lock script would read it. A user that may not PING still has a connection; one
	 * that may not PUBLISH on the channel may not SUBSCRIBE to it either (the same channel patterns). The channel is
	 * checked from the second attempt on (a lost or refused subscription, such as after the user's channels were
	 * taken away), so that a client's first subscription publishes nothing; the empty message wakes nobody.
	 */
	private void checkConnection() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			try {
				connection.ping();
			}
			catch (RuntimeException ex) {
				if (!RedisFailures.isPermissionDenied(ex)) {
					throw ex;
				}
			}
			if (this.attempted) {
				connection.publish(this.channel.getBytes(StandardCharsets.UTF_8), new byte[0]);
			}
		}
		finally {
			this.attempted = true;
		}
	}

	private void subscribed() {
		if (this.failures > 0 && logger.isInfoEnabled()) {
			logger.info("Subscribed to lock release notifications on channel '" + this.channel + "' after "
					+ this.failures + ((this.failures == 1) ? " failed attempt" : " failed attempts"));
		}
		this.failures = 0;
		this.nextAttempt = System.nanoTime();
	}

	private void failed(RuntimeException ex) {
		this.failures++;
		long pause = RETRY_NANOS << Math.min(this.failures - 1, 20);
		this.nextAttempt = System.nanoTime() + Math.min(pause, MAX_RETRY_NANOS);
		if (this.closed) {
			return;
		}
		if (this.failures == 1) {
			String hint = RedisFailures.isPermissionDenied(ex)
					? "; the Redis user lacks a permission the locks need, give it the ACL rule '"
							+ RedisPermissions.aclRule(this.keyPrefix) + "'"
					: "";
			logger.warn("Cannot subscribe to lock release notifications on channel '" + this.channel + "' ("
					+ RedisFailures.describe(ex) + ")" + hint + "; waiters retry on their own meanwhile. Retrying "
					+ "quietly with backoff (at most every " + TimeUnit.NANOSECONDS.toSeconds(MAX_RETRY_NANOS) + " s)");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Still cannot subscribe to lock release notifications on channel '" + this.channel + "' ("
					+ this.failures + " failed attempts): " + RedisFailures.describe(ex));
		}
	}

	/** Nothing to do: the one subscription serves every waiter. */
	@Override
	public void waiterUnregistered(String redisKey) {
	}

	/** Unsubscribes; no new attempt starts. */
	@Override
	public void close() {
		this.closed = true;
		// on a thread of its own, so that a connect that never ends cannot hold the application's shutdown
		Thread stopping = new Thread(this::destroyContainer, "distributed-lock-subscription-close");
		stopping.setDaemon(true);
		stopping.start();
		try {
			stopping.join(CLOSE_WAIT_MILLIS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (stopping.isAlive()) {
			logger.warn("The subscription to '" + this.channel + "' did not stop within " + CLOSE_WAIT_MILLIS
					+ " ms: a connection attempt to Redis is still under way; it is left to end on a daemon thread");
		}
	}

	private void destroyContainer() {
		try {
			this.container.destroy();
		}
		catch (Exception ex) {
			// closing a broken subscription is not worth failing the shutdown for
		}
	}

}
