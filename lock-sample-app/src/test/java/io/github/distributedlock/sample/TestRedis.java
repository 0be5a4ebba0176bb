package io.github.distributedlock.sample;

import java.io.IOException;

/**
 * A Redis of its own for the tests of other packages (the documentation's snippets): the sample's
 * {@link EmbeddedRedisFallback}, asked for a port where no Redis answers, so it starts a {@code redis-server} from
 * PATH (or the embedded-redis library's) on a free port. Closing it stops that server.
 */
public final class TestRedis implements AutoCloseable {

	private static final String[] NO_REDIS_THERE = { "--spring.data.redis.port=1" };

	private final EmbeddedRedisFallback redis;

	private TestRedis(EmbeddedRedisFallback redis) {
		this.redis = redis;
	}

	/**
	 * Starts a server.
	 * @return the running server; the caller closes it
	 * @throws IOException if it cannot be started
	 */
	public static TestRedis start() throws IOException {
		return new TestRedis(EmbeddedRedisFallback.ensureRedis(NO_REDIS_THERE));
	}

	/**
	 * Returns the application arguments that connect to this server.
	 * @return {@code --spring.data.redis.host=...} and {@code --spring.data.redis.port=...}
	 */
	public String[] connectionArguments() {
		return this.redis.withConnectionArguments(new String[0]);
	}

	@Override
	public void close() {
		this.redis.close();
	}

}
