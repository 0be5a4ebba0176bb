package io.github.distributedlock.redis;

import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.Owners;
import java.time.Duration;

import io.github.distributedlock.annotation.LockType;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A separate application instance for the fault tests: acquires a lock with auto-renew, prints
 * {@code HELD <owner id>}, and holds it until killed. Arguments: Redis port, lock key, lease in ms, and
 * optionally the lock type (REENTRANT by default), how long to wait for it in ms (default: try once) and the
 * key's permit count (default 1; more takes one permit of a semaphore); when it waits, it prints
 * {@code WAITING <owner id>} first, so that it can be killed while it waits.
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
		LockType type = (args.length > 3) ? LockType.valueOf(args[3]) : LockType.REENTRANT;
		Duration timeout = (args.length > 4) ? Duration.ofMillis(Long.parseLong(args[4])) : Duration.ZERO;
		if (!timeout.isZero()) {
			System.out.println("WAITING " + Owners.prefix(client));
			System.out.flush();
		}
		int permits = (args.length > 5) ? Integer.parseInt(args[5]) : 1;
		boolean acquired = (permits == 1) ? (client.acquire(LockRequest.builder(key).type(type).lease(lease)
				.timeout(timeout).interruptible(false).releasedByThread().build()) != null)
				: client.acquire(LockRequest.builder(key).type(type).permits(permits).lease(lease).timeout(timeout)
						.interruptible(false).build()) != null;
		if (!acquired) {
			System.out.println("NOT-ACQUIRED");
			System.exit(2);
		}
		System.out.println("HELD " + Owners.current(client));
		System.out.flush();
		// hold until killed: the parent never writes to our standard input
		System.in.read();
	}

}
