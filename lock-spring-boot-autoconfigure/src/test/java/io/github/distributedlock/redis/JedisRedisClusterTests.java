package io.github.distributedlock.redis;

import io.github.distributedlock.test.RedisClientLibrary;

/**
 * {@link RedisClusterTests} again with lock clients on Jedis, whose cluster connection has no pipelines.
 */
class JedisRedisClusterTests extends RedisClusterTests {

	@Override
	RedisClientLibrary clientLibrary() {
		return RedisClientLibrary.JEDIS;
	}

}
