package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.fencing.FencedRedis;
import io.github.distributedlock.fencing.StaleFencingTokenException;
import io.github.distributedlock.test.ExclusionChecker;
import io.github.distributedlock.test.FakeClock;
import io.github.distributedlock.test.RedisServer;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The fault cases of a node that loses a holder's key, on 3 nodes. Each starts alike: another owner holds node
 * {@link #OTHER}, so the first holder A is granted a bare majority, nodes 0 and 1; then one of those two loses A's
 * key: restarted empty after the longest lease (redis.io's delayed restart: no second holder), restarted empty at
 * once, or its clock jumped forward (negative controls: the other owner releases, a second holder B is granted
 * node {@link #OTHER} and the faulty node, and both hold at once, which Redlock cannot prevent; B's token is
 * greater and a fenced write refuses A's after B's). The {@link ExclusionChecker} sees A inside from its
 * acquisition until it is told lost or checked out, and B from its acquisition.
 */
final class RedlockFaultChecks {

	/** The node another owner holds while A acquires. */
	static final int OTHER = 2;

	private static final String KEY = "faulty";

	private RedlockFaultChecks() {
	}

	/**
	 * Node 1 killed under A (auto-renewed, 1 s lease) and restarted empty only after the delayed-restart time
	 * (2 s, longer than the longest lease): A, short of a quorum, is told lost before it rejoins, and B, granted
	 * nodes 1 and 2 (and node 0, which A's loss freed), never overlaps it.
	 */
	static void restartedEmptyAfterTheLongestLease(RedlockTopology topology) throws Exception {
		Duration lease = Duration.ofSeconds(1);
		Duration delayedRestart = lease.multipliedBy(2);
		RedlockLockClient first = topology.client();
		ExclusionChecker checker = new ExclusionChecker();
		LockHandle a = firstHolder(topology, first, lease, true);
		checker.enter(a.fencingToken());
		AtomicLong lostAt = new AtomicLong();
		a.whenLost().thenRun(() -> {
			lostAt.set(System.nanoTime());
			checker.leave();
		});
		long crashedAt = System.nanoTime();
		topology.servers.get(1).kill();
		// the fault itself, not a synchronisation: the node stays down for the delayed-restart time
		long down = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedAt);
		TimeUnit.MILLISECONDS.sleep(Math.max(0, delayedRestart.toMillis() - down));
		topology.servers.get(1).restart();
		// B is another instance, started now: its connections are up at once (a client's reconnection to a node
		// that was down backs off for seconds)
		RedlockLockClient second = topology.client();
		LockHandle b = secondHolder(topology, second, 1);
		checker.enter(b.fencingToken());
		checker.leave();
		System.out.println("Redlock, a node restarted empty after " + delayedRestart.toMillis() + " ms (lease "
				+ lease.toMillis() + " ms): A told lost " + TimeUnit.NANOSECONDS.toMillis(lostAt.get() - crashedAt)
				+ " ms after the crash; " + checker.summary());
		assertThat(checker.overlaps()).as("no second holder while A held").isZero();
		assertThat(a.isLost()).as("A, renewed on node 0 alone, was told lost when its validity ended").isTrue();
		assertThat(checker.tokenRegressions()).isZero();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(a::close);
		b.close();
		// the rejoined node votes again: exclusion and increasing tokens over it
		RedlockQuorumChecks.contend(topology, 5);
	}

	/**
	 * Node 1 restarted empty at once under A (a hard 5 s lease): B is granted nodes 1 and 2 while A is within its
	 * validity.
	 */
	static void restartedEmptyAtOnce(RedlockTopology topology) throws Exception {
		RedlockLockClient first = topology.client();
		ExclusionChecker checker = new ExclusionChecker();
		LockHandle a = firstHolder(topology, first, Duration.ofSeconds(5), false);
		checker.enter(a.fencingToken());
		topology.restartEmpty(1);
		RedlockLockClient second = topology.client();
		LockHandle b = secondHolder(topology, second, 1);
		// A's connection to the restarted node comes back in the background (Lettuce's reconnect backs off): A's
		// release must reach that node, or it is judged by the two others, one of which never had A, and a node
		// that cannot be reached counts neither way (docs/redlock.md)
		await().atMost(Duration.ofSeconds(15))
			.untilAsserted(() -> assertThat(first.nodes().get(1).info("server")).succeedsWithin(Duration.ofSeconds(1)));
		overlapFencedByTheTokens(topology, checker, a, b, 1, "a node restarted empty at once");
	}

	/**
	 * Node 0's clock jumped forward by a minute under A (a hard 5 s lease): A's key expires there, and B is granted
	 * nodes 0 and 2 while A is within its validity. B's token is greater by node 0's counter, which keeps A's token
	 * through the jump, and by node 0's clock, a minute ahead.
	 */
	static void clockJumpedForward(RedlockTopology topology, FakeClock nodeZeroClock) throws Exception {
		RedlockLockClient first = topology.client();
		RedlockLockClient second = topology.client();
		ExclusionChecker checker = new ExclusionChecker();
		LockHandle a = firstHolder(topology, first, Duration.ofSeconds(5), false);
		checker.enter(a.fencingToken());
		Duration jump = Duration.ofMinutes(1);
		nodeZeroClock.jump(jump);
		assertThat(topology.ownerOn(0, KEY)).as("A's key expired on the jumped clock").isNull();
		assertThat(topology.servers.get(0).admin().get(RedlockTopology.PREFIX + KEY + "~token"))
			.as("node 0's token counter, without TTL, still A's token").isEqualTo(Long.toString(a.fencingToken()));
		LockHandle b = secondHolder(topology, second, 0);
		// A's token may be the one its vote proposed: ahead of the clocks by up to 1 ms and a vote's way out
		assertThat(b.fencingToken() - a.fencingToken()).as("B's token is from node 0's clock, %s ahead", jump)
			.isGreaterThan(TimeUnit.NANOSECONDS.toMicros(jump.minusMillis(50).toNanos()));
		overlapFencedByTheTokens(topology, checker, a, b, 0, "node 0's clock jumped " + jump.toSeconds() + " s forward");
	}

	/**
	 * Issue 41.3, a token that went back: node 0's clock a constant 30 s ahead (an offset, not a jump during a
	 * hold). H1 is granted nodes 0 and 1 (node {@link #OTHER} held by another owner), so its token comes from node
	 * 0's clock; H1 releases; node 1 is killed and restarted empty after 2 leases (redis.io's delayed restart); H2
	 * is granted nodes 1 and 2 (node 0 held by another owner). Only one node, a minority, lost its state, so H2's
	 * token must exceed H1's: node 2 refused H1 and still carries H1's token, and node 0's refusal of H2 answers
	 * its basis too.
	 */
	static void tokenAfterAMinorityLostItsCounter(RedlockTopology topology, FakeClock nodeZeroClock)
			throws Exception {
		nodeZeroClock.jump(Duration.ofSeconds(30));
		Duration lease = Duration.ofSeconds(1);
		String key = "offset";
		topology.occupy(OTHER, key, Duration.ofSeconds(30));
		long t1;
		RedlockLockClient first = topology.client();
		try (LockHandle h1 = RedlockTopology.acquired(first,
				RedlockTopology.request(key).lease(lease).autoRenew(false).build())) {
			t1 = h1.fencingToken();
			assertThat(topology.ownerOn(OTHER, key)).as("node %d held by another owner", OTHER)
				.isEqualTo("another-client:1/1");
		}
		long recorded = t1;
		RedlockTopology.soon().untilAsserted(() -> {
			assertThat(topology.ownerOn(0, key)).as("H1 released on node 0").isNull();
			assertThat(topology.ownerOn(1, key)).as("H1 released on node 1").isNull();
			assertThat(topology.servers.get(OTHER).admin().get(RedlockTopology.PREFIX + key + "~token"))
				.as("node %d, which refused H1, raised its counter to H1's token", OTHER)
				.isEqualTo(Long.toString(recorded));
		});
		long crashedAt = System.nanoTime();
		topology.servers.get(1).kill();
		// the fault itself, not a synchronisation: the node stays down for 2 leases
		long down = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedAt);
		TimeUnit.MILLISECONDS.sleep(Math.max(0, lease.multipliedBy(2).toMillis() - down));
		topology.servers.get(1).restart();
		topology.free(OTHER, key);
		topology.occupy(0, key, Duration.ofSeconds(30));
		RedlockLockClient second = topology.client();
		long t2;
		try (LockHandle h2 = RedlockTopology.acquired(second,
				RedlockTopology.request(key).lease(lease).autoRenew(false).timeout(Duration.ofSeconds(3)).build())) {
			t2 = h2.fencingToken();
			assertThat(topology.ownerOn(1, key)).as("H2 on node 1").startsWith(second.getClientId());
			assertThat(topology.ownerOn(OTHER, key)).as("H2 on node %d", OTHER).startsWith(second.getClientId());
		}
		System.out.println("Redlock, node 0's clock 30 s ahead, node 1 restarted empty after 2 leases: t1 " + t1
				+ ", t2 " + t2 + " (t2 - t1 = " + (t2 - t1) + " us)");
		assertThat(t2).as("H2's token after H1's, one node of 3 having lost its state").isGreaterThan(t1);
	}

	/** Another owner holds node {@link #OTHER}; A acquires and is granted nodes 0 and 1, a bare majority. */
	private static LockHandle firstHolder(RedlockTopology topology, RedlockLockClient client, Duration lease,
			boolean autoRenew) throws InterruptedException {
		topology.occupy(OTHER, KEY, Duration.ofSeconds(30));
		LockHandle a = RedlockTopology.acquired(client,
				RedlockTopology.request(KEY).lease(lease).autoRenew(autoRenew).build());
		// the acquisition completes once a quorum recorded its token: the last node may still be recording
		RedlockTopology.soon().untilAsserted(() -> {
			assertThat(topology.ownerOn(0, KEY)).as("A on node 0").startsWith(client.getClientId());
			assertThat(topology.ownerOn(1, KEY)).as("A on node 1").startsWith(client.getClientId());
		});
		return a;
	}

	/** The other owner releases node {@link #OTHER}; B acquires and is granted it and the faulty node. */
	private static LockHandle secondHolder(RedlockTopology topology, RedlockLockClient client, int faulty)
			throws InterruptedException {
		topology.free(OTHER, KEY);
		LockHandle b = RedlockTopology.acquired(client,
				RedlockTopology.request(KEY).timeout(Duration.ofSeconds(3)).build());
		RedlockTopology.soon().untilAsserted(() -> {
			assertThat(topology.ownerOn(faulty, KEY)).as("B on node %d", faulty).startsWith(client.getClientId());
			assertThat(topology.ownerOn(OTHER, KEY)).as("B on node %d", OTHER).startsWith(client.getClientId());
		});
		return b;
	}

	/**
	 * A, within its validity, and B hold at once: the checker sees two holders inside; B's token is greater; a
	 * fenced write to the resource refuses A's write after B's; A's release finds the lock gone.
	 */
	private static void overlapFencedByTheTokens(RedlockTopology topology, ExclusionChecker checker, LockHandle a,
			LockHandle b, int faulty, String fault) {
		assertThat(a.isLost()).as("A was not told anything").isFalse();
		a.checkHeld(Duration.ofMillis(500));
		checker.enter(b.fencingToken());
		System.out.println("Redlock, " + fault + ": A token " + a.fencingToken() + ", B token " + b.fencingToken()
				+ ", " + checker.summary());
		assertThat(checker.overlaps()).as("two holders at once: what Redlock cannot prevent here").isEqualTo(1);
		assertThat(checker.mostInside()).isEqualTo(2);
		assertThat(checker.tokenRegressions()).as("B's token greater than A's").isZero();
		fencedWrites(topology.resource(), a.fencingToken(), b.fencingToken());
		checker.leave();
		checker.leave();
		// A's release finds B's key on the nodes B holds: no quorum can have held A's; its key on node 0 goes too
		int onlyA = 1 - faulty;
		assertThatExceptionOfType(LockLostException.class).isThrownBy(a::close);
		RedlockTopology.soon().untilAsserted(() -> assertThat(topology.ownerOn(onlyA, KEY)).isNull());
		b.close();
		topology.awaitGone(KEY);
	}

	/** B writes the resource with its token; A's write after it, with the older token, is refused. */
	private static void fencedWrites(RedisServer resource, long tokenA, long tokenB) {
		LettuceConnectionFactory connections = resource.connectionFactory();
		try {
			FencedRedis fenced = new FencedRedis(connections);
			fenced.set("balance", "written by B", tokenB);
			assertThatExceptionOfType(StaleFencingTokenException.class)
				.isThrownBy(() -> fenced.set("balance", "written by A", tokenA));
			assertThat(resource.admin().get("balance")).isEqualTo("written by B");
		}
		finally {
			connections.destroy();
		}
	}

}
