package io.github.distributedlock.redis;

import java.time.Duration;

import io.github.distributedlock.annotation.LockType;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A separate application instance for {@link RedisFailureTests}: acquires a lock with auto-renew, prints
 * {@code HELD}, and holds it until killed.
 */
public final class LockHolderMain {

	private LockHolderMain() {
	}

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		String key = args[1];
		Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		RedisLockClient client = new RedisLockClient(factory, "lock:");
		if (!client.acquire(key, LockType.REENTRANT, lease, true, Duration.ZERO, false)) {
			System.out.println("NOT-ACQUIRED");
			System.exit(2);
		}
		System.out.println("HELD");
		System.out.flush();
		// hold until killed: the parent never writes to our standard input
		System.in.read();
	}

}
