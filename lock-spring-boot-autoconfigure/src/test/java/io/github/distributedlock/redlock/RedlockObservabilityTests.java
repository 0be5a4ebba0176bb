package io.github.distributedlock.redlock;

import java.time.Duration;

import java.util.List;
import java.util.Map;

import io.github.distributedlock.actuate.RedlockHealthIndicator;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.metrics.RedlockVoteMeters;
import io.github.distributedlock.redis.RedisPermissions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the Redlock store tells about its nodes and holds, on 3 real {@code redis-server} processes: the votes per
 * node and outcome ({@code distributed.lock.redlock.votes}), granted, refused, timed out (a node stopped with
 * {@code kill -STOP}) and failed (a node killed), a hold's remaining validity on its handle, one WARN per node
 * that stops answering (killed, frozen) and one INFO when it is back, and the {@code distributedLock} health
 * contributor: UP with a quorum answering and each node's state in its details, DOWN below a quorum, a node that
 * refuses the client's password named as a configuration error.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockObservabilityTests extends RedlockTopologyTests {

	@Test
	void aKilledNodeIsWarnedAboutOnceAndItsReturnToldOnce(CapturedOutput output) throws Exception {
		RedlockLockClient client = this.topology.client();
		String stopped = "Redlock node " + this.topology.name(1) + " stopped answering";
		String back = "Redlock node " + this.topology.name(1) + " answers again";
		this.topology.servers.get(1).kill();
		// told by the lost connection itself, before any command goes to the node
		await().atMost(Duration.ofSeconds(10)).until(() -> lines(output, stopped).size() == 1);
		for (int i = 0; i < 5; i++) {
			RedlockTopology.acquired(client, RedlockTopology.request("killed").build()).close();
		}
		assertThat(lines(output, stopped)).singleElement().asString().contains("WARN");
		this.topology.servers.get(1).restart();
		// told by the reopened connection's PING, before any lock needs the node
		await().atMost(Duration.ofSeconds(40)).until(() -> lines(output, back).size() == 1);
		for (int i = 0; i < 5; i++) {
			RedlockTopology.acquired(client, RedlockTopology.request("killed").build()).close();
		}
		assertThat(lines(output, back)).singleElement().asString().contains("INFO");
		assertThat(lines(output, stopped)).hasSize(1);
	}

	@Test
	void aFrozenNodeIsWarnedAboutOnceAndItsReturnToldOnce(CapturedOutput output) throws Exception {
		RedlockLockClient client = this.topology.client();
		String stopped = "Redlock node " + this.topology.name(2) + " stopped answering (no answer within the node "
				+ "timeout)";
		String back = "Redlock node " + this.topology.name(2) + " answers again";
		this.topology.servers.get(2).freeze();
		try {
			// each round waits for the quorum only: the frozen node's votes time out behind them
			await().atMost(Duration.ofSeconds(20)).until(() -> {
				RedlockTopology.acquired(client, RedlockTopology.request("frozen").build()).close();
				return lines(output, stopped).size() == 1;
			});
			for (int i = 0; i < 3; i++) {
				RedlockTopology.acquired(client, RedlockTopology.request("frozen").build()).close();
			}
		}
		finally {
			this.topology.servers.get(2).resume();
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> {
			RedlockTopology.acquired(client, RedlockTopology.request("frozen").build()).close();
			return lines(output, back).size() == 1;
		});
		assertThat(lines(output, stopped)).singleElement().asString().contains("WARN");
		assertThat(lines(output, back)).singleElement().asString().contains("INFO");
	}

	@Test
	@SuppressWarnings("unchecked")
	void theHealthIsUpWithAQuorumNamingEachNodeAndDownBelowIt() throws Exception {
		RedlockHealthIndicator health = new RedlockHealthIndicator(this.topology.client());
		Health all = health.health(true);
		assertThat(all.getStatus()).isEqualTo(Status.UP);
		assertThat((Map<String, String>) all.getDetails().get("nodes")).containsOnlyKeys(this.topology.name(0),
				this.topology.name(1), this.topology.name(2)).allSatisfy((node, state) -> assertThat(state).isEqualTo("up"));
		assertThat(all.getDetails()).containsEntry("quorum", 2).containsEntry("answering", "3 of 3");
		// the client subscribes in the background once its command connections are open
		RedlockTopology.soon()
			.untilAsserted(() -> assertThat(health.health(true).getDetails())
				.containsEntry("releaseSubscriptions", "3 of 3 listening"));
		this.topology.servers.get(0).kill();
		Health minority = health.health(true);
		assertThat(minority.getStatus()).isEqualTo(Status.UP);
		assertThat((Map<String, String>) minority.getDetails().get("nodes"))
			.hasEntrySatisfying(this.topology.name(0), (state) -> assertThat(state).startsWith("not answering"))
			.containsEntry(this.topology.name(1), "up");
		assertThat(minority.getDetails()).containsEntry("answering", "2 of 3");
		this.topology.servers.get(1).freeze();
		try {
			Health majority = health.health(true);
			assertThat(majority.getStatus()).isEqualTo(Status.DOWN);
			assertThat((Map<String, String>) majority.getDetails().get("nodes"))
				.hasEntrySatisfying(this.topology.name(1), (state) -> assertThat(state).startsWith("not answering"))
				.containsEntry(this.topology.name(2), "up");
		}
		finally {
			this.topology.servers.get(1).resume();
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void aNodeThatRefusesThePasswordIsAConfigurationErrorInTheHealth() throws Exception {
		for (int node = 0; node < 3; node++) {
			this.topology.setUser(node, RedisPermissions.redlockAclRule(RedlockTopology.PREFIX));
		}
		RedlockLockClient client = new RedlockLockClient(new RedlockSettings(List.of(this.topology.urlsOfUser(0, "wrong")),
				Duration.ofMillis(250), 0.01, Duration.ofMillis(20), Duration.ofMillis(10), RedlockTopology.PREFIX));
		try {
			Health health = new RedlockHealthIndicator(client).health(true);
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat((Map<String, String>) health.getDetails().get("nodes"))
				.hasEntrySatisfying(this.topology.name(0),
						(state) -> assertThat(state).contains("refuses this client's credentials")
							.contains("a configuration error")
							.contains("WRONGPASS"))
				.containsEntry(this.topology.name(1), "up");
		}
		finally {
			client.close();
		}
	}

	private static List<String> lines(CapturedOutput output, String text) {
		return output.getOut().lines().filter((line) -> line.contains(text)).toList();
	}

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
