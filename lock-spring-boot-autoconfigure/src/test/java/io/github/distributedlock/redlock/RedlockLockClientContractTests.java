package io.github.distributedlock.redlock;

import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockClientContractTests;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The lock contract on the Redlock store, 3 real {@code redis-server} processes shared by the class: what applies
 * to its reentrant locks (minimum holds included) runs as on every store; the read/write cases skip by the store's
 * capabilities, and first come, first served waiting skips because Redlock waiters retry on independent servers.
 */
class RedlockLockClientContractTests extends LockClientContractTests {

	private static RedlockTopology topology;

	@BeforeAll
	static void startNodes() {
		topology = new RedlockTopology(3);
	}

	@AfterAll
	static void stopNodes() {
		if (topology != null) {
			topology.close();
		}
	}

	@Override
	protected LockClient createClient() {
		return topology.client();
	}

	/** Whether no node has an owner of the key (within a moment: a release returns once a quorum ran it). */
	@Override
	protected boolean isGone(String key) {
		try {
			topology.awaitGone(key);
			return true;
		}
		catch (AssertionError | ConditionTimeoutException ex) {
			return false;
		}
	}

	@Override
	protected int waitingOwners(String key) {
		throw new UnsupportedOperationException("Redlock waiters are in their clients only");
	}

	@Override
	protected boolean queuesWaiters() {
		return false;
	}

}
