package io.github.distributedlock.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import ch.qos.logback.classic.Level;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.redlock.RedlockLockClient;

/**
 * The second application JVM of the Redlock chaos run ({@link RedlockChaosRunner} starts it through
 * {@link HolderJvm}): this library's Redlock store over the run's nodes, contending for one key on one thread.
 * Speaks as {@link ChaosHolder} does: prints {@link ChaosHolder#HELD} and the fencing token when it holds, and
 * releases when the runner, which plays its body, answers a line. Arguments: the lock key, then the node URLs.
 */
public final class RedlockChaosHolder {

	private RedlockChaosHolder() {
	}

	/**
	 * Contends for the lock until killed, or until its standard input ends.
	 * @param args the lock key, then every node's {@code redis://host:port}
	 * @throws Exception never on purpose: failed acquisitions and releases are tried again or left to the lease
	 */
	public static void main(String[] args) throws Exception {
		ChaosRunner.logOnly(Level.OFF);
		RedlockLockClient client = RedlockPeer.oursClient(Arrays.asList(args).subList(1, args.length));
		DistributedLockTemplate template = new DistributedLockTemplate(client, ChaosPeer.LEASE, ChaosPeer.WAIT);
		LockDefinition definition = LockDefinition.builder(args[0])
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
				// a fault on a node: try again
				continue;
			}
			System.out.println(ChaosHolder.HELD + handle.fencingToken());
			System.out.flush();
			if (runner.readLine() == null) {
				client.close();
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
