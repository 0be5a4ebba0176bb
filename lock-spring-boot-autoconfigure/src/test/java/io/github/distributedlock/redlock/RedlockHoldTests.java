package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.test.OnThread;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a hold on the Redlock store does beyond the lock contract ({@code RedlockLockClientContractTests}), on 3
 * real {@code redis-server} processes: a late release after a hard lease on each node, a minimum hold
 * ({@code holdAtLeast}) kept on every node, asynchronous acquisitions and their cancellation, handles closed from
 * another thread, releases by a thread that does not hold the lock.
 */
class RedlockHoldTests extends RedlockTopologyTests {

	@Test
	void aLateReleaseAfterAHardLeaseRanOutTouchesNoneOfTheNextHoldersNodes() throws Exception {
		RedlockLockClient first = this.topology.client();
		RedlockLockClient second = this.topology.client();
		LockHandle expiring = RedlockTopology.acquired(first,
				RedlockTopology.request("hard").lease(Duration.ofMillis(300)).autoRenew(false).build());
		LockHandle next = RedlockTopology.acquired(second,
				RedlockTopology.request("hard").timeout(Duration.ofSeconds(10)).build());
		assertThat(expiring.isLost()).isTrue();
		assertThatThrownBy(() -> first.release("hard", LockType.REENTRANT)).isInstanceOf(LockLostException.class)
			.hasMessageContaining("300 ms");
		assertThat(next.isLost()).isFalse();
		// the next holder holds a quorum; the expired holder's late release touched none of its nodes
		int held = 0;
		for (int node = 0; node < 3; node++) {
			String owner = this.topology.ownerOn(node, "hard");
			assertThat(owner).as("node %d", node).satisfiesAnyOf((o) -> assertThat(o).isNull(),
					(o) -> assertThat(o).startsWith(second.getClientId()));
			held += (owner != null) ? 1 : 0;
		}
		assertThat(held).isGreaterThanOrEqualTo(2);
		next.close();
	}

	@Test
	void aMinimumHoldKeepsTheKeyOnEveryNodeTakenByNobodyUntilItEnds() throws Exception {
		RedlockLockClient first = this.topology.client();
		RedlockLockClient second = this.topology.client();
		long start = System.nanoTime();
		LockHandle handle = RedlockTopology.acquired(first, RedlockTopology.request("kept")
			.holdAtLeast(Duration.ofMillis(1500))
			.timeout(Duration.ofSeconds(10))
			.build());
		String attempt = first.heldLocks().get(0).owner();
		handle.close();
		assertThat(first.heldLocks()).isEmpty();
		RedlockTopology.soon().untilAsserted(() -> {
			for (int node = 0; node < 3; node++) {
				assertThat(this.topology.ownerOn(node, "kept")).as("node %d", node).isEqualTo(attempt + "~kept");
				assertThat(this.topology.servers.get(node).admin().pttl(RedlockTopology.PREFIX + "kept"))
					.as("the key's TTL on node %d: what is left of the minimum hold", node)
					.isBetween(1L, 1500L);
			}
		});
		assertThat(first.acquire(RedlockTopology.request("kept").timeout(Duration.ZERO).build()))
			.as("not even its former holder").isNull();
		assertThat(second.acquire(RedlockTopology.request("kept").timeout(Duration.ZERO).build())).isNull();
		LockHandle next = RedlockTopology.acquired(second,
				RedlockTopology.request("kept").timeout(Duration.ofSeconds(10)).build());
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1400));
		assertThat(next.fencingToken()).isGreaterThan(handle.fencingToken());
		next.close();
		this.topology.awaitGone("kept");
	}

	@Test
	void aReentryWithALongerMinimumHoldMovesItsEndLater() throws Exception {
		RedlockLockClient client = this.topology.client();
		LockHandle outer = RedlockTopology.acquired(client,
				RedlockTopology.request("longer").timeout(Duration.ofSeconds(10)).build());
		LockHandle inner = RedlockTopology.acquired(client,
				RedlockTopology.request("longer").holdAtLeast(Duration.ofSeconds(3)).build());
		inner.close();
		outer.close();
		// the release returns once a quorum kept it; the last node may still be running it
		RedlockTopology.soon().untilAsserted(() -> {
			for (int node = 0; node < 3; node++) {
				assertThat(this.topology.servers.get(node).admin().pttl(RedlockTopology.PREFIX + "longer"))
					.as("kept on node %d", node)
					.isBetween(1000L, 3000L);
			}
		});
		// a hold released after its minimum hold ended, or without one, is deleted at once
		RedlockTopology.acquired(client, RedlockTopology.request("plain").timeout(Duration.ofSeconds(10)).build())
			.close();
		this.topology.awaitGone("plain");
	}

	@Test
	void aCancelledAsynchronousAcquisitionStopsWaitingAndHoldsNothing() throws Exception {
		RedlockLockClient client = this.topology.client();
		AtomicInteger acquired = new AtomicInteger();
		client.setLockObserver(new LockObserver() {
			@Override
			public void acquired(String key, LockType type, int permits) {
				acquired.incrementAndGet();
			}
		});
		for (int node = 0; node < 3; node++) {
			this.topology.occupy(node, "cancelled", Duration.ofMillis(600));
		}
		CompletableFuture<LockHandle> pending = client.acquireAsync(RedlockTopology.request("cancelled")
			.owner(client.newAsyncOwner())
			.timeout(Duration.ofSeconds(30))
			.build());
		assertThat(pending.cancel(false)).isTrue();
		// the other owner's keys end; a waiting acquisition would take the lock then
		await().pollDelay(Duration.ofMillis(1200)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			for (int node = 0; node < 3; node++) {
				assertThat(this.topology.ownerOn(node, "cancelled")).as("node %d", node).isNull();
			}
		});
		assertThat(client.heldLocks()).isEmpty();
		assertThat(acquired).as("the cancelled acquisition never took the lock").hasValue(0);
	}

	@Test
	void anAsynchronousAcquisitionCompletesWithAHandleAnyThreadCloses() throws Exception {
		RedlockLockClient client = this.topology.client();
		long owner = client.newAsyncOwner();
		LockHandle handle = client.acquireAsync(RedlockTopology.request("async").owner(owner).build())
			.get(10, TimeUnit.SECONDS);
		assertThat(handle).isNotNull();
		LockHandle again = client.acquireAsync(RedlockTopology.request("async").owner(owner).build())
			.get(10, TimeUnit.SECONDS);
		assertThat(again.fencingToken()).as("reentrant per owner").isEqualTo(handle.fencingToken());
		again.closeAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
		handle.closeAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
		this.topology.awaitGone("async");
	}

	@Test
	void aHandleClosedByAnotherThreadReleasesOnceAndOnlyItsOwnerReleasesByThread() throws Exception {
		RedlockLockClient client = this.topology.client();
		LockHandle handle = RedlockTopology.acquired(client, RedlockTopology.request("handle").build());
		try (OnThread<Boolean> other = OnThread.start("other", () -> {
			assertThatThrownBy(() -> client.release("handle", LockType.REENTRANT))
				.isInstanceOf(IllegalMonitorStateException.class);
			handle.close();
			handle.close();
			return true;
		})) {
			assertThat(other.get(10)).isTrue();
		}
		this.topology.awaitGone("handle");
		assertThat(client.isHeldByCurrentThread("handle", LockType.REENTRANT)).isFalse();
	}

}
