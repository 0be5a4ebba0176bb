package io.github.distributedlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Wakes local waiters when a lock is released anywhere. One Redis subscription per client, on one channel,
 * serves every waiter of every lock: release scripts publish the released lock's Redis key there, and each
 * message wakes the waiters of that key in this JVM, which then try again.
 * <p>
 * A waiter registers before it tries the lock, so a release between a failed try and the wait is not
 * missed. A lost message (a broken subscription) only delays a waiter until the holder's lease ends,
 * when it retries anyway. Thread-safe.
 */
final class ReleaseNotifications implements MessageListener, AutoCloseable {

	private final ConcurrentHashMap<String, Set<Waiter>> waitersByKey = new ConcurrentHashMap<>();

	private final RedisMessageListenerContainer container;

	ReleaseNotifications(RedisConnectionFactory connectionFactory, String channel) {
		RedisMessageListenerContainer listenerContainer = new RedisMessageListenerContainer();
		listenerContainer.setConnectionFactory(connectionFactory);
		// the listener only releases semaphores: run it on the connection's thread, no thread per message
		listenerContainer.setTaskExecutor(Runnable::run);
		listenerContainer.addMessageListener(this, new ChannelTopic(channel));
		listenerContainer.afterPropertiesSet();
		listenerContainer.start();
		this.container = listenerContainer;
	}

	/**
	 * Registers the calling thread as a waiter for {@code redisKey}.
	 * @param redisKey the lock's Redis key
	 * @return the waiter, to be {@linkplain #unregister(Waiter) unregistered} in a {@code finally}
	 */
	Waiter register(String redisKey) {
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
