package io.github.distributedlock.redis;

import io.github.distributedlock.test.RedisClientLibrary;

/**
 * Every reentrant-lock test of {@link RedisLockClientTests} again, with lock clients on Jedis (with Spring
 * Boot's default pool) instead of Lettuce: scripts, pub/sub waiting and grants, renewal.
 */
class JedisRedisLockClientTests extends RedisLockClientTests {

	@Override
	RedisClientLibrary clientLibrary() {
		return RedisClientLibrary.JEDIS;
	}

}
