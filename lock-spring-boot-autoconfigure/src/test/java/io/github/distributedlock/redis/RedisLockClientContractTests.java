package io.github.distributedlock.redis;

import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockClientContractTests;
import io.github.distributedlock.test.RedisClientLibrary;
import io.github.distributedlock.test.SharedRedis;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The lock contract on {@link RedisLockClient}s sharing one real redis-server.
 */
class RedisLockClientContractTests extends LockClientContractTests {

	private static final String PREFIX = "lock:";

	private final StringRedisTemplate redis = SharedRedis.redis();

	/**
	 * The Redis client library of the lock clients under test: a subclass that returns another runs the whole
	 * contract on that one. (The assertions read Redis through Lettuce.)
	 */
	RedisClientLibrary clientLibrary() {
		return RedisClientLibrary.LETTUCE;
	}

	@Override
	protected LockClient createClient() {
		return new RedisLockClient(SharedRedis.connectionFactory(clientLibrary()), PREFIX);
	}

	@Override
	protected boolean isGone(String key) {
		return !Boolean.TRUE.equals(this.redis.hasKey(PREFIX + key));
	}

	/** Waiters of reentrant locks queue in the lock's hash ({@code q:}), waiting writers and readers claim it. */
	@Override
	protected int waitingOwners(String key) {
		return (int) this.redis.<String, String>opsForHash()
			.keys(PREFIX + key)
			.stream()
			.filter((field) -> field.startsWith("q:") || field.startsWith("ww:") || field.startsWith("rw:"))
			.count();
	}

}
