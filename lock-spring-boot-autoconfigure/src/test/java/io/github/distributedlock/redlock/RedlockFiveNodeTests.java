package io.github.distributedlock.redlock;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redlock on 5 real {@code redis-server} processes this class shares (quorum 3): the quorum logic over all 32
 * subsets of occupied nodes, contention of two clients, 2 nodes killed (still works), 3 killed (holders told
 * lost, acquisitions fail within their timeout).
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockFiveNodeTests extends RedlockTopologyTests {

	@Override
	int nodes() {
		return 5;
	}

	@Test
	void acquiredExactlyWhenTheFreeNodesAreAMajority() throws Exception {
		RedlockQuorumChecks.everySubsetOfOccupiedNodes(this.topology);
	}

	@Test
	void twoClientsContendingNeverOverlapAndTheirTokensIncrease() throws Exception {
		assertThat(RedlockQuorumChecks.contend(this.topology, 15).bodies()).isEqualTo(8 * 15);
	}

	@Test
	void twoNodesKilledReadALockHeldElsewhereAsBusyInEveryWayOfAsking(CapturedOutput output) throws Exception {
		RedlockQuorumChecks.busyWithAMinorityDown(this.topology, output);
	}

	@Test
	void twoNodesKilledStillAcquiresRenewsAndExcludes() throws Exception {
		RedlockQuorumChecks.minorityKilled(this.topology);
	}

	@Test
	void threeNodesKilledTellTheHolderAndFailAcquisitionsWithinTheirTimeout() throws Exception {
		RedlockQuorumChecks.majorityKilled(this.topology);
	}

}
