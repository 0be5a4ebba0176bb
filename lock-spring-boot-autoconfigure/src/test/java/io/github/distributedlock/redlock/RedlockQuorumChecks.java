package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.ExclusionChecker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The checks every topology runs (3 and 5 nodes), on its shared servers: the quorum logic over every subset of
 * occupied nodes, contention with the exclusion checker, and kills of a minority and of a majority.
 */
final class RedlockQuorumChecks {

	private RedlockQuorumChecks() {
	}

	/** Every subset of nodes pre-occupied by another owner: acquired iff the free nodes are a majority. */
	static void everySubsetOfOccupiedNodes(RedlockTopology topology) throws Exception {
		int n = topology.servers.size();
		RedlockLockClient client = topology.client();
		for (int mask = 0; mask < (1 << n); mask++) {
			String key = "subset-" + mask;
			for (int node = 0; node < n; node++) {
				if ((mask & (1 << node)) != 0) {
					topology.occupy(node, key, Duration.ofSeconds(30));
				}
			}
			boolean majorityFree = n - Integer.bitCount(mask) >= topology.quorum();
			LockHandle handle = client.acquire(RedlockTopology.request(key).build());
			assertThat(handle != null).as("occupied nodes %s of %d", Integer.toBinaryString(mask), n)
				.isEqualTo(majorityFree);
			for (int node = 0; node < n; node++) {
				boolean occupied = (mask & (1 << node)) != 0;
				String owner = topology.ownerOn(node, key);
				if (occupied) {
					assertThat(owner).as("another owner's node is untouched").isEqualTo("another-client:1/1");
				}
				else if (handle == null) {
					// the withdrawal completes once its outcome is known: the last node may still be running it
					int free = node;
					RedlockTopology.soon().untilAsserted(() -> assertThat(topology.ownerOn(free, key))
						.as("a failed attempt is withdrawn from node %d", free).isNull());
				}
				else {
					// the acquisition completes once a quorum recorded its token: the last node may still be granting
					int free = node;
					RedlockTopology.soon().untilAsserted(() -> assertThat(topology.ownerOn(free, key))
						.as("held on free node %d", free).startsWith(client.getClientId()));
				}
			}
			if (handle != null) {
				assertThat(handle.fencingToken()).isPositive();
				handle.close();
				int occupied = mask;
				RedlockTopology.soon().untilAsserted(() -> {
					for (int node = 0; node < n; node++) {
						if ((occupied & (1 << node)) == 0) {
							assertThat(topology.ownerOn(node, key)).as("released on node %d", node).isNull();
						}
					}
				});
			}
		}
	}

	/** Two clients, several threads each, one key: one holder at a time, no lost update, tokens increasing. */
	static ExclusionChecker contend(RedlockTopology topology, int callsPerThread) throws Exception {
		ExclusionChecker checker = new ExclusionChecker();
		List<RedlockLockClient> clients = List.of(topology.client(), topology.client());
		Concurrently.run(8, 120, (thread) -> {
			RedlockLockClient client = clients.get(thread % 2);
			for (int i = 0; i < callsPerThread; i++) {
				checker.call(() -> {
					try (LockHandle handle = RedlockTopology.acquired(client,
							RedlockTopology.request("contended").timeout(Duration.ofSeconds(30)).build())) {
						checker.body(handle.fencingToken());
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						throw new IllegalStateException(ex);
					}
				});
			}
		});
		System.out.println("Redlock on " + topology.servers.size() + " nodes: " + checker.summary());
		assertThat(checker.problems(1.0)).as(checker.summary()).isEmpty();
		assertThat(checker.overlaps()).isZero();
		assertThat(checker.tokenRegressions()).isZero();
		assertThat(checker.lostUpdates()).isZero();
		return checker;
	}

	/** A minority killed: locks are still acquired, renewed past their lease and released, without overlap. */
	static void minorityKilled(RedlockTopology topology) throws Exception {
		int minority = topology.servers.size() - topology.quorum();
		for (int i = 0; i < minority; i++) {
			topology.servers.get(i).kill();
		}
		RedlockLockClient client = topology.client();
		LockHandle handle = RedlockTopology.acquired(client,
				RedlockTopology.request("minority").lease(Duration.ofMillis(600)).build());
		CompletableFuture<LockLostException> lost = handle.whenLost().toCompletableFuture();
		// held for 2.5 leases: renewed on the majority left
		await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).until(() -> !lost.isDone());
		handle.checkHeld(Duration.ofMillis(100));
		handle.close();
		contend(topology, 10);
	}

	/** A majority killed: a holder is told lost within its lease, acquisitions fail within their timeout. */
	static void majorityKilled(RedlockTopology topology) throws Exception {
		RedlockLockClient client = topology.client();
		LockHandle handle = RedlockTopology.acquired(client,
				RedlockTopology.request("majority").lease(Duration.ofMillis(900)).build());
		CompletableFuture<LockLostException> lost = handle.whenLost().toCompletableFuture();
		long killedAt = System.nanoTime();
		for (int i = 0; i < topology.quorum(); i++) {
			topology.servers.get(i).kill();
		}
		LockLostException loss = lost.get(5, TimeUnit.SECONDS);
		long toldAfterMillis = (System.nanoTime() - killedAt) / 1_000_000;
		System.out.println("Redlock on " + topology.servers.size() + " nodes, majority killed: holder told lost after "
				+ toldAfterMillis + " ms (lease 900 ms)");
		assertThat(toldAfterMillis).as("told lost by the end of its validity, plus one renewal round").isLessThan(900 + 500);
		assertThat(loss.getMessage()).contains("quorum");
		assertThat(handle.isLost()).isTrue();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close);
		long start = System.nanoTime();
		assertThatExceptionOfType(DistributedLockException.class)
			.isThrownBy(() -> client.acquire(RedlockTopology.request("other").timeout(Duration.ofMillis(500)).build()))
			.withMessageContaining("fewer than the quorum");
		System.out.println("Redlock on " + topology.servers.size() + " nodes, majority killed: acquisition with a "
				+ "500 ms timeout failed after " + (System.nanoTime() - start) / 1_000_000 + " ms");
		assertThat((System.nanoTime() - start) / 1_000_000).as("failed within the acquire timeout + a node timeout")
			.isLessThan(500 + 2 * 250 + 300);
	}

}
