package io.github.distributedlock.redis;

import io.github.distributedlock.test.RedisClientLibrary;

/**
 * Every fault of {@link RedisFailureTests} again, with the lock client on Jedis instead of Lettuce: Redis down,
 * killed and restarted under the client (the release subscription comes back), a holder process killed.
 */
class JedisRedisFailureTests extends RedisFailureTests {

	@Override
	RedisClientLibrary clientLibrary() {
		return RedisClientLibrary.JEDIS;
	}

}
