package io.github.distributedlock.redlock;

import java.time.Duration;

import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.metrics.RedlockVoteMeters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the Redlock store tells about its nodes and holds, on 3 real {@code redis-server} processes: the votes per
 * node and outcome ({@code distributed.lock.redlock.votes}), granted, refused, timed out (a node stopped with
 * {@code kill -STOP}) and failed (a node killed), and a hold's remaining validity on its handle.
 */
class RedlockObservabilityTests extends RedlockTopologyTests {

	@Test
	void votesAreCountedPerNodeAndOutcome() throws Exception {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		RedlockLockClient client = this.topology.client();
		client.setVoteObserver(new RedlockVoteMeters(registry));
		// every node's four counters exist at zero
		assertThat(registry.find(RedlockVoteMeters.VOTES).counters()).hasSize(12);
		this.topology.occupy(1, "metered", Duration.ofSeconds(30));
		this.topology.servers.get(2).freeze();
		try {
			assertThat(client.acquire(RedlockTopology.request("metered").timeout(Duration.ZERO).build())).isNull();
		}
		finally {
			this.topology.servers.get(2).resume();
		}
		RedlockTopology.soon().untilAsserted(() -> {
			assertThat(votes(registry, 0, "granted")).isEqualTo(1);
			assertThat(votes(registry, 1, "refused")).isEqualTo(1);
			assertThat(votes(registry, 2, "timeout")).isEqualTo(1);
		});
		this.topology.servers.get(2).kill();
		// a node that is gone refuses the connection: an error, not a timeout (once its client saw it go)
		RedlockTopology.soon().untilAsserted(() -> {
			RedlockTopology.acquired(client, RedlockTopology.request("other").timeout(Duration.ZERO).build()).close();
			assertThat(votes(registry, 2, "error")).isPositive();
		});
		assertThat(votes(registry, 0, "refused") + votes(registry, 0, "timeout") + votes(registry, 0, "error"))
			.isZero();
	}

	@Test
	void theHandleTellsTheRemainingValidity() throws Exception {
		RedlockLockClient client = this.topology.client();
		long before = System.nanoTime();
		try (LockHandle handle = RedlockTopology.acquired(client,
				RedlockTopology.request("validity").lease(Duration.ofSeconds(5)).autoRenew(false).build())) {
			Duration first = ((RedlockHandle) handle).remainingValidity();
			Duration elapsed = Duration.ofNanos(System.nanoTime() - before);
			// lease - elapsed - drift (0.01 x 5 s + 2 ms = 52 ms)
			assertThat(first).isLessThanOrEqualTo(Duration.ofMillis(5000 - 52))
				.isGreaterThanOrEqualTo(Duration.ofMillis(5000 - 52).minus(elapsed));
			// it counts down on the monotonic clock
			RedlockTopology.soon()
				.until(() -> ((RedlockHandle) handle).remainingValidity().compareTo(first.minusMillis(50)) < 0);
			assertThat(handle.leaseConfirmedUntil()).isBefore(java.time.Instant.now().plus(first));
		}
	}

	private double votes(SimpleMeterRegistry registry, int node, String outcome) {
		String name = this.topology.servers.get(node).host() + ":" + this.topology.servers.get(node).port();
		return registry.get(RedlockVoteMeters.VOTES).tag("node", name).tag("outcome", outcome).counter().count();
	}

}
