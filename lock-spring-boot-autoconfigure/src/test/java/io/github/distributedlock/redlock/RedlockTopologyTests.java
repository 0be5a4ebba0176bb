package io.github.distributedlock.redlock;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * A test class that shares one {@link RedlockTopology} between its tests: started before the first, its killed
 * servers restarted and every server emptied before each, stopped after the last.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RedlockTopologyTests {

	RedlockTopology topology;

	/**
	 * Tells how many nodes the topology has: 3, the smallest Redlock that tolerates a node's failure, unless the
	 * class overrides it.
	 * @return how many nodes
	 */
	int nodes() {
		return 3;
	}

	/**
	 * Starts the topology the class shares; a class whose nodes need more than {@link #nodes()} overrides it.
	 * @return the topology
	 */
	RedlockTopology newTopology() {
		return new RedlockTopology(nodes());
	}

	@BeforeAll
	void startTopology() {
		this.topology = newTopology();
	}

	@AfterAll
	void stopTopology() {
		if (this.topology != null) {
			this.topology.close();
		}
	}

	@BeforeEach
	void resetTopology() {
		this.topology.reset();
	}

}
