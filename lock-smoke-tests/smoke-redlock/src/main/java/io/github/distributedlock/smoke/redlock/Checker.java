package io.github.distributedlock.smoke.redlock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The test's checker, a {@code redis-server} that is none of the Redlock nodes, reached with a Lettuce client of
 * its own ({@code smoke.checker-url}): no {@code spring.data.redis}, so the application is Redlock-only, as one
 * whose locks are its only Redis use. Holds the counter, the count of callers inside, and the count of started
 * instances. Thread-safe (Lettuce's connection is).
 */
@Component
class Checker implements DisposableBean {

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	Checker(@Value("${smoke.checker-url}") String url) {
		this.client = RedisClient.create(url);
		this.connection = this.client.connect();
	}

	RedisCommands<String, String> redis() {
		return this.connection.sync();
	}

	@Override
	public void destroy() {
		this.connection.close();
		this.client.shutdown();
	}

}
