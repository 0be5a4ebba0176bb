package io.github.distributedlock.benchmarks;

import java.util.Arrays;

import ch.qos.logback.classic.Level;
import io.github.distributedlock.core.DistributedLockTemplate;
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
		try {
			ChaosHolder.contend(new DistributedLockTemplate(client, ChaosPeer.LEASE, ChaosPeer.WAIT), args[0]);
		}
		finally {
			client.close();
		}
	}

}
