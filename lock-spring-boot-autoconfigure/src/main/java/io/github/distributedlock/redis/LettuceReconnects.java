package io.github.distributedlock.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Tells when a connection of a Lettuce client was made again, through Lettuce's event bus
 * ({@link ConnectionActivatedEvent}): a release notification or grant published while the subscription was down
 * is lost, so the waiters then try again at once instead of at their next timed try. Loaded only with Lettuce.
 */
final class LettuceReconnects {

	private LettuceReconnects() {
	}

	/**
	 * Runs {@code onReconnect} each time a connection of the factory's client becomes active, if the factory is
	 * Lettuce's and its client exists.
	 * @param connectionFactory the connection factory
	 * @param onReconnect what to run, on Lettuce's event thread: it must not block
	 * @return what ends the listening when closed, or {@code null} if there is none
	 */
	static @Nullable AutoCloseable listen(RedisConnectionFactory connectionFactory, Runnable onReconnect) {
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
		Disposable subscription = client.getResources().eventBus().get()
			.filter(ConnectionActivatedEvent.class::isInstance)
			.subscribe((event) -> onReconnect.run(), (ex) -> {
			});
		return subscription::dispose;
	}

}
