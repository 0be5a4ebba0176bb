package io.github.distributedlock.redlock;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redlock on 5 real {@code redis-server} processes this class shares (quorum 3): the quorum logic over all 32
 * subsets of occupied nodes, contention of two clients, 2 nodes killed (still works), 3 killed (holders told
 * lost, acquisitions fail within their timeout).
 */
class RedlockFiveNodeTests {

	private static RedlockTopology topology;

	@BeforeAll
	static void start() {
		topology = new RedlockTopology(5);
	}

	@AfterAll
	static void stop() {
		if (topology != null) {
			topology.close();
		}
	}

	@BeforeEach
	void reset() {
		topology.reset();
	}

	@Test
	void acquiredExactlyWhenTheFreeNodesAreAMajority() throws Exception {
		RedlockQuorumChecks.everySubsetOfOccupiedNodes(topology);
	}

	@Test
	void twoClientsContendingNeverOverlapAndTheirTokensIncrease() throws Exception {
		assertThat(RedlockQuorumChecks.contend(topology, 15).bodies()).isEqualTo(8 * 15);
	}

	@Test
	void twoNodesKilledStillAcquiresRenewsAndExcludes() throws Exception {
		RedlockQuorumChecks.minorityKilled(topology);
	}

	@Test
	void threeNodesKilledTellTheHolderAndFailAcquisitionsWithinTheirTimeout() throws Exception {
		RedlockQuorumChecks.majorityKilled(topology);
	}

}
