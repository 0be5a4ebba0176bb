package io.github.distributedlock.redis;

import java.time.Duration;

import io.github.distributedlock.annotation.LockType;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A separate application instance for the fault tests: waits (up to a minute) for the write side of a
 * read/write lock, so that it records a waiting writer's claim, until it is killed. Arguments: Redis port, lock
 * key, lease in ms.
 */
public final class WaitingWriterMain {

	private WaitingWriterMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
		factory.afterPropertiesSet();
		factory.start();
		RedisLockClient client = new RedisLockClient(factory, "lock:");
		System.out.println("WAITING " + client.getClientId() + ":" + Thread.currentThread().getId());
		System.out.flush();
		boolean acquired = client.acquire(args[1], LockType.WRITE, Duration.ofMillis(Long.parseLong(args[2])), true,
				Duration.ofMinutes(1), false);
		System.out.println(acquired ? "HELD" : "NOT-ACQUIRED");
		System.exit(acquired ? 0 : 2);
	}

}
