package io.github.distributedlock.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Tells when a connection of a Lettuce client breaks and when it is made again. A release notification or grant
 * published while the subscription was down is lost, so the waiters try again at once on a reconnect
 * ({@link ConnectionActivatedEvent}, from Lettuce's event bus) instead of at their next timed try. A command in
 * flight when its connection broke may be sent again after the reconnect (Lettuce's at-least-once delivery),
 * and so run twice: the disconnect is told synchronously ({@link RedisConnectionStateListener}, on the connection's
 * I/O thread as the connection closes), before anything can be sent again, so that the reply of such a command
 * can be read for what it is. Loaded only with Lettuce.
 */
final class LettuceReconnects {

	private LettuceReconnects() {
	}

	/**
	 * Listens to the factory's client, if the factory is Lettuce's and its client exists.
	 * @param connectionFactory the connection factory
	 * @param onReconnect run after a connection became active; on Lettuce's event thread: it must not block
	 * @param onDisconnect run as a connection closes, before anything is sent again; on an I/O thread: it must
	 * not block
	 * @return what ends the listening when closed, or {@code null} if there is none
	 */
	static @Nullable AutoCloseable listen(RedisConnectionFactory connectionFactory, Runnable onReconnect,
			Runnable onDisconnect) {
		if (!ClassUtils.isPresent("io.lettuce.core.RedisClient", LettuceReconnects.class.getClassLoader())
				|| !ClassUtils.isPresent("reactor.core.Disposable", LettuceReconnects.class.getClassLoader())
				|| !(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			return null;
		}
		AbstractRedisClient client;
		try {
			client = lettuce.getNativeClient();
		}
		catch (RuntimeException ex) {
			// not started yet: the timed tries still cover what a lost notification delays
			return null;
		}
		RedisConnectionStateListener disconnects = new RedisConnectionStateListener() {

			@Override
			public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
				onDisconnect.run();
			}

		};
		client.addListener(disconnects);
		Disposable reconnects = client.getResources().eventBus().get()
			.filter(ConnectionActivatedEvent.class::isInstance)
			.subscribe((event) -> onReconnect.run(), (ex) -> {
			});
		return () -> {
			reconnects.dispose();
			client.removeListener(disconnects);
		};
	}

}
