package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Wakes local waiters when a lock is released anywhere. One Redis subscription per client, on one channel,
 * serves every waiter of every lock: release scripts publish the released lock's Redis key there, and each
 * message wakes the waiters of that key in this JVM, which then try again.
 * <p>
 * A waiter registers before it tries the lock, so a release between a failed try and the wait is not
 * missed. A lost message (a broken subscription) only delays a waiter until the holder's lease ends,
 * when it retries anyway. So Redis being down when the client starts does not fail the start. The
 * subscription is checked every second on the client's scheduler and when a waiter registers, and made
 * again when it is down (at most once a second); this is the only recovery, the container's own is off
 * (its retries run recursively on the caller's thread). Thread-safe.
 */
final class ReleaseNotifications implements MessageListener, AutoCloseable {

	private final ConcurrentHashMap<String, Set<Waiter>> waitersByKey = new ConcurrentHashMap<>();

	private static final Log logger = LogFactory.getLog(ReleaseNotifications.class);

	private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final RedisMessageListenerContainer container;

	private final String channel;

	private final ReentrantLock subscribing = new ReentrantLock();

	private volatile long nextAttempt;

	private volatile boolean closed;

	/**
	 * Subscribes, or tries to: an unreachable Redis is logged, not thrown.
	 * @param connectionFactory the Redis connections; one more is opened for the subscription
	 * @param channel the channel release scripts publish on
	 * @param scheduler runs the periodic subscription check; owned by the caller
	 */
	ReleaseNotifications(RedisConnectionFactory connectionFactory, String channel, ScheduledExecutorService scheduler) {
		this.channel = channel;
		this.container = new RedisMessageListenerContainer();
		this.container.setConnectionFactory(connectionFactory);
		// the listener only releases semaphores: run it on the connection's thread, no thread per message
		this.container.setTaskExecutor(Runnable::run);
		this.container.setSubscriptionExecutor(scheduler);
		this.container.setRecoveryBackoff(new FixedBackOff(0, 0));
		this.container.addMessageListener(this, new ChannelTopic(channel));
		this.container.afterPropertiesSet();
		this.nextAttempt = System.nanoTime();
		subscribe();
		scheduler.scheduleWithFixedDelay(this::subscribe, 1, 1, TimeUnit.SECONDS);
	}

	/**
	 * Tells whether the subscription is up.
	 * @return {@code true} while release notifications arrive
	 */
	boolean isListening() {
		return this.container.isListening();
	}

	/**
	 * Makes the subscription if it is not made and no other thread is making it, at most once a second.
	 */
	private void subscribe() {
		if (this.closed || this.container.isListening() || System.nanoTime() - this.nextAttempt < 0
				|| !this.subscribing.tryLock()) {
			return;
		}
		try {
			if (!this.closed && !this.container.isListening()) {
				this.nextAttempt = System.nanoTime() + RETRY_NANOS;
				// a failed or lost subscription leaves the container 'started': reset it first
				this.container.stop();
				this.container.start();
			}
		}
		catch (RuntimeException ex) {
			this.container.stop();
			if (logger.isWarnEnabled()) {
				logger.warn("Cannot subscribe to lock release notifications on channel '" + this.channel + "' ("
						+ ex.getMessage() + "); waiters retry when the holder's lease ends until it works");
			}
		}
		finally {
			this.subscribing.unlock();
		}
	}

	/**
	 * Registers the calling thread as a waiter for {@code redisKey}.
	 * @param redisKey the lock's Redis key
	 * @return the waiter, to be {@linkplain #unregister(Waiter) unregistered} in a {@code finally}
	 */
	Waiter register(String redisKey) {
		subscribe();
		Waiter waiter = new Waiter(redisKey);
		this.waitersByKey.compute(redisKey, (key, waiters) -> {
			Set<Waiter> set = (waiters != null) ? waiters : ConcurrentHashMap.newKeySet();
			set.add(waiter);
			return set;
		});
		return waiter;
	}

	void unregister(Waiter waiter) {
		this.waitersByKey.computeIfPresent(waiter.redisKey, (key, waiters) -> {
			waiters.remove(waiter);
			return waiters.isEmpty() ? null : waiters;
		});
	}

	/**
	 * Wakes every local waiter of {@code redisKey}.
	 * @param redisKey the lock's Redis key
	 */
	void wake(String redisKey) {
		Set<Waiter> waiters = this.waitersByKey.get(redisKey);
		if (waiters != null) {
			for (Waiter waiter : waiters) {
				waiter.signal();
			}
		}
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		wake(new String(message.getBody(), StandardCharsets.UTF_8));
	}

	int waitingKeys() {
		return this.waitersByKey.size();
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.container.destroy();
		}
		catch (Exception ex) {
			// closing a broken subscription is not worth failing the shutdown for
		}
	}

	/**
	 * One waiting thread. A signal that arrives before {@link #await} is kept, so none is lost.
	 */
	static final class Waiter {

		private final String redisKey;

		private final Semaphore signals = new Semaphore(0);

		Waiter(String redisKey) {
			this.redisKey = redisKey;
		}

		void signal() {
			if (this.signals.availablePermits() == 0) {
				this.signals.release();
			}
		}

		/**
		 * Waits for a signal or the time to pass.
		 * @param nanos the longest wait
		 * @throws InterruptedException if interrupted while waiting
		 */
		void await(long nanos) throws InterruptedException {
			if (this.signals.tryAcquire(nanos, TimeUnit.NANOSECONDS)) {
				this.signals.drainPermits();
			}
		}

	}

}
