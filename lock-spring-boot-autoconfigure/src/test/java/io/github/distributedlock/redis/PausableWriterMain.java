package io.github.distributedlock.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * An application instance for the paused-holder test, in a JVM of its own so that the test can stop it with
 * SIGSTOP: acquires a lock with an auto-renewed lease, prints {@code HELD <token>}, and on the line
 * {@code WRITE} from its standard input writes through a {@link FencedRegister} with its token, prints
 * {@code WRITE accepted} or {@code WRITE refused}, releases, and prints {@code RELEASED} or
 * {@code LOST <message>}. Arguments: Redis port, lock key, register key, lease in ms.
 */
public final class PausableWriterMain {

	private PausableWriterMain() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
		factory.afterPropertiesSet();
		factory.start();
		RedisLockClient client = new RedisLockClient(factory, "lock:");
		DistributedLockTemplate template = new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ZERO);
		FencedRegister register = new FencedRegister(new StringRedisTemplate(factory), args[2]);
		LockHandle handle = template
			.acquire(LockDefinition.builder(args[1]).lease(Duration.ofMillis(Long.parseLong(args[3]))).build());
		System.out.println("HELD " + handle.fencingToken());
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		if ("WRITE".equals(in.readLine())) {
			System.out.println("WRITE " + (register.write(handle.fencingToken(), "paused holder") ? "accepted" : "refused"));
			try {
				handle.close();
				System.out.println("RELEASED");
			}
			catch (LockLostException ex) {
				System.out.println("LOST " + ex.getMessage());
			}
			System.out.flush();
		}
		client.close();
		factory.destroy();
	}

}
