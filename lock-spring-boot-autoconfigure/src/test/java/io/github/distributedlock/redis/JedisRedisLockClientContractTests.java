package io.github.distributedlock.redis;

import io.github.distributedlock.core.LockClientContractTests;
import io.github.distributedlock.test.RedisClientLibrary;

/**
 * The whole lock contract of {@link LockClientContractTests} again, with lock clients on Jedis (with Spring
 * Boot's default pool) instead of Lettuce, so both clients are held to the same semantics as the local store.
 */
class JedisRedisLockClientContractTests extends RedisLockClientContractTests {

	@Override
	RedisClientLibrary clientLibrary() {
		return RedisClientLibrary.JEDIS;
	}

}
