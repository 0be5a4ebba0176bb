package io.github.distributedlock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import ch.qos.logback.classic.Level;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.redis.RedisLockClient;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A holder JVM of the chaos run ({@link HolderJvm} starts it, and kills it with SIGKILL): one more application
 * instance of this library that contends for the run's key on one thread. Each time it holds the lock it prints
 * {@value #HELD} and the fencing token, and releases only when the runner answers a line on its standard input
 * (the runner plays its body, so that the run's checker sees it). Arguments: Redis port, lock key.
 */
public final class ChaosHolder {

	/** What it prints, followed by the fencing token, when it holds the lock. */
	static final String HELD = "CHAOS-HELD ";

	private ChaosHolder() {
	}

	/**
	 * Contends for the lock until killed, or until its standard input ends.
	 * @param args the Redis port on 127.0.0.1, and the lock key (without the {@code lock:} prefix)
	 * @throws Exception never on purpose: failed acquisitions and releases are tried again or left to the lease
	 */
	public static void main(String[] args) throws Exception {
		ChaosRunner.logOnly(Level.OFF);
		LettuceConnectionFactory factory = ChaosPeer
			.factory(new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])));
		RedisLockClient client = new RedisLockClient(factory, "lock:");
		contend(new DistributedLockTemplate(client, ChaosPeer.LEASE, ChaosPeer.WAIT), args[1]);
	}

	/**
	 * Acquires the lock again and again, printing {@link #HELD} and the fencing token of each hold, and releases
	 * it after the runner's answer (a line on standard input).
	 * @param template the template of the holder's store
	 * @param key the lock key
	 * @throws IOException if standard input fails
	 */
	static void contend(DistributedLockTemplate template, String key) throws IOException {
		LockDefinition definition = LockDefinition.builder(key)
			.lease(ChaosPeer.LEASE)
			.acquireTimeout(Duration.ofSeconds(30))
			.build();
		BufferedReader runner = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		while (true) {
			LockHandle handle;
			try {
				handle = template.acquire(definition);
			}
			catch (RuntimeException ex) {
				// churn or a fault on a node: try again
				continue;
			}
			System.out.println(HELD + handle.fencingToken());
			System.out.flush();
			if (runner.readLine() == null) {
				return;
			}
			try {
				handle.close();
			}
			catch (RuntimeException ex) {
				// the lock ends with its lease
			}
		}
	}

}
