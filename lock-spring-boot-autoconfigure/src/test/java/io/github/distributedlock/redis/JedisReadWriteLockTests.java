package io.github.distributedlock.redis;

import io.github.distributedlock.test.RedisClientLibrary;

/**
 * Every read/write-lock test of {@link ReadWriteLockTests} again, with lock clients on Jedis (with Spring
 * Boot's default pool) instead of Lettuce.
 */
class JedisReadWriteLockTests extends ReadWriteLockTests {

	@Override
	RedisClientLibrary clientLibrary() {
		return RedisClientLibrary.JEDIS;
	}

}
