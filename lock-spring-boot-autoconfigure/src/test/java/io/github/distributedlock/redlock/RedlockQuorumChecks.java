package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.aop.DistributedLockAdvisor;
import io.github.distributedlock.aop.DistributedLockInterceptor;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.ExclusionChecker;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.test.system.CapturedOutput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The checks every topology runs (3 and 5 nodes), on its shared servers: the quorum logic over every subset of
 * occupied nodes, contention with the exclusion checker, kills of a minority and of a majority, and a lock held by
 * another instance while a minority is down (busy, not unavailable).
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

	/**
	 * Another instance (its own client) holds a key; a minority of nodes is killed ({@code kill -9}); then every way
	 * of asking for the key reads as busy, not as the store unavailable: the live nodes refused for the holder, and
	 * they are a quorum that answered. {@code tryAcquire} is empty, {@code acquire} with a timeout throws the
	 * {@link LockAcquisitionException} of the Redis store, a {@code @DistributedLock} method with {@code SKIP} is
	 * skipped without an ERROR, and the asynchronous and reactive callers likewise.
	 */
	static void busyWithAMinorityDown(RedlockTopology topology, CapturedOutput output) throws Exception {
		RedlockLockClient holder = topology.client();
		// a node timeout with room for a loaded test machine: a live node that does not answer in time is not a quorum
		RedlockLockClient other = topology.client(Duration.ofSeconds(1), Duration.ofMillis(20));
		String key = "busy";
		LockHandle held = RedlockTopology.acquired(holder,
				RedlockTopology.request(key).lease(Duration.ofSeconds(30)).build());
		RedlockTopology.soon().untilAsserted(() -> {
			for (int node = 0; node < topology.servers.size(); node++) {
				assertThat(topology.ownerOn(node, key)).as("held on node %d", node).startsWith(holder.getClientId());
			}
		});
		int minority = topology.servers.size() - topology.quorum();
		for (int i = 0; i < minority; i++) {
			topology.servers.get(i).kill();
		}
		Duration timeout = Duration.ofMillis(300);
		DistributedLockTemplate template = new DistributedLockTemplate(other, Duration.ofSeconds(30), timeout);
		LockDefinition once = LockDefinition.builder(key).acquireTimeout(Duration.ZERO).build();
		LockDefinition waiting = LockDefinition.builder(key).acquireTimeout(timeout).build();
		for (int round = 0; round < 3; round++) {
			assertThat(other.acquire(RedlockTopology.request(key).timeout(Duration.ZERO).build()))
				.as("tryAcquire on the client").isNull();
			assertThat(template.tryAcquire(once)).as("tryAcquire on the template").isEmpty();
			assertThat(other.acquire(RedlockTopology.request(key).timeout(timeout).build()))
				.as("acquire with a timeout on the client").isNull();
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> template.acquire(waiting));
			assertThat(other.acquireAsync(RedlockTopology.request(key).timeout(timeout).owner(other.newAsyncOwner()).build()))
				.as("acquireAsync").succeedsWithin(Duration.ofSeconds(5))
				.isNull();
			assertThat(template.executeAsync(waiting, () -> CompletableFuture.completedFuture("ran")))
				.as("executeAsync").failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(java.util.concurrent.ExecutionException.class)
				.withCauseInstanceOf(LockAcquisitionException.class);
			ReactiveDistributedLockTemplate reactive = new ReactiveDistributedLockTemplate(other, Duration.ofSeconds(30),
					timeout);
			StepVerifier.create(reactive.execute(waiting, Mono.just("ran")))
				.expectError(LockAcquisitionException.class)
				.verify(Duration.ofSeconds(5));
			Jobs jobs = jobs(template);
			assertThat(jobs.once()).as("@DistributedLock tried once, SKIP").isNull();
			assertThat(jobs.waiting()).as("@DistributedLock with a timeout, SKIP").isNull();
		}
		assertThat(output.getAll()).as("SKIP is quiet").doesNotContain(" ERROR ").doesNotContain("Redlock nodes answered");
		held.close();
	}

	private static Jobs jobs(DistributedLockTemplate template) {
		ProxyFactory factory = new ProxyFactory(new Jobs());
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new DistributedLockAdvisor(new DistributedLockInterceptor(template), 0));
		return (Jobs) factory.getProxy();
	}

	/** A job as a user writes it: run by whichever instance gets the lock, skipped by the others. */
	static class Jobs {

		@DistributedLock(name = "busy", acquireTimeout = "0", onFailure = OnLockFailure.SKIP)
		public String once() {
			return "ran";
		}

		@DistributedLock(name = "busy", acquireTimeout = "300ms", onFailure = OnLockFailure.SKIP)
		public String waiting() {
			return "ran";
		}

	}

}
