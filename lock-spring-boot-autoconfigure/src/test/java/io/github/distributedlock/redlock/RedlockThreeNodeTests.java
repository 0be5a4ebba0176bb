package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.OnLockLoss;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.ConnectionChurn;
import io.github.distributedlock.test.ExclusionChecker;
import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Redlock on 3 real {@code redis-server} processes this class shares (quorum 2): the quorum logic over every
 * subset, contention of two clients, reentrancy and tokens, withdrawn votes, kills of a minority and a majority,
 * a node restarted empty after the delayed-restart time and (a negative control) at once, and the startup checks
 * of the nodes.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockThreeNodeTests extends RedlockTopologyTests {

	@Test
	void acquiredExactlyWhenTheFreeNodesAreAMajority() throws Exception {
		RedlockQuorumChecks.everySubsetOfOccupiedNodes(this.topology);
	}

	@Test
	void twoClientsContendingNeverOverlapAndTheirTokensIncrease() throws Exception {
		assertThat(RedlockQuorumChecks.contend(this.topology, 15).bodies()).isEqualTo(8 * 15);
	}

	@Test
	void aReentryNeedsNoVoteAndKeepsTheOuterToken() throws Exception {
		RedlockLockClient client = this.topology.client();
		LockHandle outer = RedlockTopology.acquired(client, RedlockTopology.request("re").build());
		// every node frozen: a re-entry that sent a vote would get no quorum
		this.topology.servers.forEach(RedisServer::freeze);
		LockHandle inner;
		try {
			inner = RedlockTopology.acquired(client, RedlockTopology.request("re").build());
			inner.close();
		}
		finally {
			this.topology.servers.forEach(RedisServer::resume);
		}
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		assertThat(client.isHeldByCurrentThread("re", io.github.distributedlock.annotation.LockType.REENTRANT)).isTrue();
		outer.close();
		this.topology.awaitGone("re");
	}

	@Test
	void tokensStrictlyIncreaseAcrossHoldersAndOutliveTheLock() throws Exception {
		RedlockLockClient first = this.topology.client();
		RedlockLockClient second = this.topology.client();
		long last = 0;
		for (int i = 0; i < 6; i++) {
			RedlockLockClient client = (i % 2 == 0) ? first : second;
			try (LockHandle handle = RedlockTopology.acquired(client, RedlockTopology.request("tokens").build())) {
				assertThat(handle.fencingToken()).isGreaterThan(last);
				last = handle.fencingToken();
			}
		}
		// one node (a minority) lost its counter: the majority still carries the last token
		this.topology.servers.get(0).admin().flushall();
		try (LockHandle handle = RedlockTopology.acquired(first, RedlockTopology.request("tokens").build())) {
			assertThat(handle.fencingToken()).isGreaterThan(last);
		}
	}

	@Test
	void aTokenRecordedOnAMajorityIsCarriedToTheNextQuorumEvenAboveTheClock() throws Exception {
		// a client that has voted before proposes a token from the nodes' clocks, far below the counters here: its
		// rounds fall back to the record of one more than the greatest basis
		RedlockLockClient client = this.topology.client();
		RedlockTopology.acquired(client, RedlockTopology.request("carry-warm-up").build()).close();
		long future = System.currentTimeMillis() * 1000 + 3_600_000_000L;
		// as if an earlier holder had recorded a token an hour ahead of the clock on a majority, nodes 0 and 1
		this.topology.servers.get(0).admin().set(RedlockTopology.PREFIX + "carry~token", Long.toString(future));
		this.topology.servers.get(1).admin().set(RedlockTopology.PREFIX + "carry~token", Long.toString(future));
		long first;
		try (LockHandle handle = RedlockTopology.acquired(client, RedlockTopology.request("carry").build())) {
			first = handle.fencingToken();
			assertThat(first).isGreaterThan(future);
		}
		// the next quorum is nodes 1 and 2: only the record of the first token on one of them carries it
		this.topology.occupy(0, "carry", Duration.ofSeconds(30));
		try (LockHandle handle = RedlockTopology.acquired(client, RedlockTopology.request("carry").build())) {
			assertThat(handle.fencingToken()).isGreaterThan(first);
		}
	}

	@Test
	void aVoteRecordsTheProposedTokenSoAHoldNeedsNoRecordRound() throws Exception {
		RedlockLockClient client = this.topology.client();
		// the first vote tells the client the nodes' clocks: no proposal before it
		RedlockTopology.acquired(client, RedlockTopology.request("proposed").build()).close();
		this.topology.awaitGone("proposed");
		this.topology.servers.forEach((server) -> server.admin().configResetstat());
		int holds = 10;
		long last = 0;
		for (int i = 0; i < holds; i++) {
			try (LockHandle handle = RedlockTopology.acquired(client, RedlockTopology.request("proposed").build())) {
				assertThat(handle.fencingToken()).isGreaterThan(last);
				last = handle.fencingToken();
				// recorded with the grant: on the key and the counter of every node (each answered in time)
				for (RedisServer server : this.topology.servers) {
					assertThat(server.admin().hget(RedlockTopology.PREFIX + "proposed", "token"))
						.isEqualTo(Long.toString(last));
					assertThat(server.admin().get(RedlockTopology.PREFIX + "proposed~token"))
						.isEqualTo(Long.toString(last));
				}
			}
		}
		this.topology.awaitGone("proposed");
		// a vote and a release per hold on each node; a record round would add a third (90 scripts): allowed for
		// a few holds whose proposal fell short (a vote slower on its way out than the one observed before)
		long scripts = 0;
		for (RedisServer server : this.topology.servers) {
			scripts += RedlockTopology.calls(server, "eval(?:sha)?");
		}
		assertThat(scripts).as("scripts run on the 3 nodes for %d holds", holds).isBetween(2L * 3 * holds, 75L);
		// clock-sized: no further ahead of the nodes' clock than a second
		long clock = Long.parseLong(this.topology.servers.get(0).admin().time().get(0)) * 1_000_000;
		assertThat(last).isLessThan(clock + 2_000_000);
	}

	@Test
	void aMajorityRestartedEmptyStillIncreasesTheTokenByTheClock() throws Exception {
		long first;
		try (LockHandle handle = RedlockTopology.acquired(this.topology.client(), RedlockTopology.request("amnesia").build())) {
			first = handle.fencingToken();
		}
		this.topology.servers.get(0).admin().flushall();
		this.topology.servers.get(1).admin().flushall();
		// the next quorum is the two nodes that forgot the token
		this.topology.occupy(2, "amnesia", Duration.ofSeconds(30));
		// retried within 10 s: on a loaded machine one try of a fresh client may find a connection still opening
		try (LockHandle handle = RedlockTopology.acquired(this.topology.client(),
				RedlockTopology.request("amnesia").timeout(Duration.ofSeconds(10)).build())) {
			assertThat(handle.fencingToken()).isGreaterThan(first);
		}
	}

	@Test
	void aRepeatedReleaseAnswersWhatItsFirstRunFound() {
		RedlockCommands commands = new RedlockCommands(
				this.topology.urls().stream().map((url) -> new RedlockNode(url, Duration.ofSeconds(1))).toList(),
				new RedlockSettings(this.topology.urls(), Duration.ofSeconds(1), 0.01, Duration.ofMillis(10),
						Duration.ZERO, RedlockTopology.PREFIX));
		commands.nodes().forEach((node) -> node.connect().join());
		RedlockKeys keys = RedlockKeys.of(RedlockTopology.PREFIX, "repeated");
		String attempt = "repeating-client:1/1";
		assertThat(commands.vote(keys, attempt, 5000).join().grants()).isGreaterThanOrEqualTo(2);
		assertThat(commands.release(keys, attempt, 5000, null).join().ones()).as("held at the release").isGreaterThanOrEqualTo(2);
		this.topology.awaitGone("repeated");
		// as Lettuce re-sends a release whose connection dropped, or the client asks a silent node again: the key is
		// gone, and yet the release ran while the attempt held it, which a repeat must not read as a loss
		assertThat(commands.release(keys, attempt, 5000, null).join().ones()).as("the repeat").isGreaterThanOrEqualTo(2);
		commands.nodes().forEach(RedlockNode::close);
	}

	@Test
	void aVoteOfAWithdrawnAttemptIsRefused() {
		RedlockLockClient client = this.topology.client();
		RedlockCommands commands = new RedlockCommands(
				this.topology.urls().stream().map((url) -> new RedlockNode(url, Duration.ofSeconds(1))).toList(),
				new RedlockSettings(this.topology.urls(), Duration.ofSeconds(1), 0.01, Duration.ofMillis(10),
						Duration.ZERO, RedlockTopology.PREFIX));
		RedlockKeys keys = RedlockKeys.of(RedlockTopology.PREFIX, "late");
		String attempt = client.getClientId() + ":1/1";
		// the connections open in the background: a command on one still opening fails at once and runs nothing
		commands.nodes().forEach((node) -> node.connect().join());
		// withdrawn before its votes answered (as after a timeout): every node gets a withdrawal marker
		commands.release(keys, attempt, 5000, new boolean[3]).join();
		Votes late = commands.vote(keys, attempt, 5000).join();
		assertThat(late.grants()).as("the late vote takes no node").isZero();
		assertThat(this.topology.ownerOn(0, "late")).isNull();
		commands.nodes().forEach(RedlockNode::close);
	}

	@Test
	void aNodeListedTwiceIsRefusedNamingIt() {
		RedisServer first = this.topology.servers.get(0);
		RedlockLockClient client = new RedlockLockClient(new RedlockSettings(
				java.util.List.of(this.topology.urls().get(0), "redis://localhost:" + first.port(), this.topology.urls().get(1)),
				Duration.ofSeconds(1), 0.01, Duration.ofMillis(10), Duration.ZERO, RedlockTopology.PREFIX));
		try {
			assertThatIllegalStateException().isThrownBy(client::checkNodes)
				.withMessageContaining("are one Redis server")
				.withMessageContaining("localhost:" + first.port());
		}
		finally {
			client.close();
		}
	}

	@Test
	void aReplicaAndAClusterMemberAreRefusedNamingThem() {
		RedisServer primary = this.topology.servers.get(0);
		try (RedisServer replica = RedisServer.start("--replicaof", primary.host(), Integer.toString(primary.port()));
				RedisServer member = RedisServer.start("--cluster-enabled", "yes")) {
			assertRefused(replica, "is a replica");
			assertRefused(member, "Redis Cluster member");
		}
	}

	@Test
	void aMinorityKilledReadsALockHeldElsewhereAsBusyInEveryWayOfAsking(CapturedOutput output) throws Exception {
		RedlockQuorumChecks.busyWithAMinorityDown(this.topology, output);
	}

	@Test
	void aMinorityKilledStillAcquiresRenewsAndExcludes() throws Exception {
		RedlockQuorumChecks.minorityKilled(this.topology);
	}

	@Test
	void aMajorityKilledTellsTheHolderAndFailsAcquisitionsWithinTheirTimeout() throws Exception {
		RedlockQuorumChecks.majorityKilled(this.topology);
	}

	@Test
	void aNodeRestartedEmptyAfterTheLongestLeaseLetsNoSecondHolderIn() throws Exception {
		RedlockFaultChecks.restartedEmptyAfterTheLongestLease(this.topology);
	}

	@Test
	void aNodeRestartedEmptyAtOnceLetsASecondHolderInAndTheTokensFenceTheFirst() throws Exception {
		RedlockFaultChecks.restartedEmptyAtOnce(this.topology);
	}

	@Test
	void aFrozenNodeDoesNotVoteAndItsLateVotesLeaveNothingBehind() throws Exception {
		RedlockLockClient client = this.topology.client();
		this.topology.servers.get(0).freeze();
		try {
			RedlockQuorumChecks.contend(this.topology, 3);
			try (LockHandle handle = RedlockTopology.acquired(client, RedlockTopology.request("frozen").build())) {
				assertThat(client.heldLocks()).singleElement()
					.satisfies((held) -> assertThat(held.fencingToken()).isEqualTo(handle.fencingToken()));
			}
		}
		finally {
			this.topology.servers.get(0).resume();
		}
		// the frozen node now runs the votes it was sent, each followed by its withdrawal or release
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			for (int node = 0; node < 3; node++) {
				assertThat(this.topology.ownerOn(node, "contended")).as("node %d", node).isNull();
				assertThat(this.topology.ownerOn(node, "frozen")).as("node %d", node).isNull();
			}
		});
		assertThat(client.heldLocks()).isEmpty();
	}

	@Test
	void connectionsKilledAndStallsOnOneNodeChangeNothing() throws Exception {
		ExclusionChecker checker;
		try (ConnectionChurn churn = ConnectionChurn.start(this.topology.servers.get(0))) {
			checker = RedlockQuorumChecks.contend(this.topology, 30);
			System.out.println("Redlock on 3 nodes with " + churn + " on one: " + checker.summary());
		}
		// the votes and releases the churned node ran late leave no key behind
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			for (int node = 0; node < 3; node++) {
				assertThat(this.topology.ownerOn(node, "contended")).as("node %d", node).isNull();
			}
		});
		assertThat(checker.bodies()).isEqualTo(8 * 30);
	}

	@Test
	void aMajorityKilledInterruptsAHolderThatAsksForIt() throws Exception {
		DistributedLockTemplate template = new DistributedLockTemplate(this.topology.client(), Duration.ofSeconds(5),
				Duration.ZERO);
		LockDefinition definition = LockDefinition.builder("interrupted")
			.lease(Duration.ofMillis(900))
			.onLost(OnLockLoss.INTERRUPT)
			.build();
		CountDownLatch inside = new CountDownLatch(1);
		CompletableFuture<Long> interruptedAfter = new CompletableFuture<>();
		AtomicLong killedAt = new AtomicLong();
		Thread holder = new Thread(() -> {
			try {
				template.execute(definition, () -> {
					inside.countDown();
					try {
						new CountDownLatch(1).await(30, TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						interruptedAfter.complete((System.nanoTime() - killedAt.get()) / 1_000_000);
					}
				});
			}
			catch (RuntimeException ex) {
				// the release reports the loss
			}
		});
		holder.start();
		assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
		killedAt.set(System.nanoTime());
		this.topology.servers.get(0).kill();
		this.topology.servers.get(1).kill();
		assertThat(interruptedAfter.get(10, TimeUnit.SECONDS)).as("interrupted by the end of its validity plus "
				+ "a renewal period").isLessThan(900 + 500);
		holder.join(10_000);
	}

	private void assertRefused(RedisServer node, String reason) {
		RedlockLockClient client = new RedlockLockClient(new RedlockSettings(
				java.util.List.of(this.topology.urls().get(1), this.topology.urls().get(2),
						"redis://" + node.host() + ":" + node.port()),
				Duration.ofSeconds(1), 0.01, Duration.ofMillis(10), Duration.ZERO, RedlockTopology.PREFIX));
		try {
			assertThatIllegalStateException().isThrownBy(client::checkNodes)
				.withMessageContaining(reason)
				.withMessageContaining(":" + node.port());
		}
		finally {
			client.close();
		}
	}

}
