package io.github.distributedlock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader election with Spring Integration's {@code LockRegistryLeaderInitiator} on the auto-configured
 * {@link DistributedLockRegistry}, across application instances on one real Redis: one leader, a new one when it
 * stops or dies, and a leader that loses its lock is told.
 */
class LeaderElectionTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	/** How often the watchdog renews a lease: a third of it. */
	private static final Duration RENEWAL_PERIOD = LEASE.dividedBy(3);

	private final String role = "leader-" + UUID.randomUUID();

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@AfterEach
	void closeInstances() {
		this.instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void threeInstancesElectExactlyOneLeaderAndKeepIt() {
		startInstances(3);
		ConfigurableApplicationContext leader = awaitOneLeader(Duration.ofSeconds(20));
		assertThat(SharedRedis.redis().hasKey("lock:" + this.role)).as("the leader's lock in Redis").isTrue();
		// several renewals of the lease and many heart beats of the leader: still the one leader, never two
		await("the same single leader for two leases").during(LEASE.multipliedBy(2))
			.atMost(LEASE.multipliedBy(4))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> leaders().equals(List.of(leader)));
		assertThat(this.instances.stream().mapToLong((instance) -> LeaderApplication.count(instance, OnGrantedEvent.class))
			.sum()).as("leaderships granted").isEqualTo(1);
		assertThat(LeaderApplication.count(leader, OnRevokedEvent.class)).isZero();
	}

	@Test
	void whenTheLeadersContextClosesAnotherInstanceIsElectedWithinTheLeasePlusARenewalPeriod() {
		startInstances(3);
		ConfigurableApplicationContext leader = awaitOneLeader(Duration.ofSeconds(20));
		long closed = System.nanoTime();
		leader.close();
		ConfigurableApplicationContext next = awaitOneLeader(LEASE.plus(RENEWAL_PERIOD));
		System.out.printf("new leader %d ms after the leader's context was closed%n",
				Duration.ofNanos(System.nanoTime() - closed).toMillis());
		assertThat(next).isNotSameAs(leader);
	}

	@Test
	void whenTheLeadersJvmIsKilledAnotherInstanceIsElectedWithinTheLeasePlusARenewalPeriod() throws Exception {
		try (LeaderProcess leader = new LeaderProcess(SharedRedis.server().port(), this.role, LEASE)) {
			startInstances(2);
			// the killed JVM's lease is renewed until then: nobody here becomes leader meanwhile
			await("no second leader while the other JVM leads").during(LEASE.plus(RENEWAL_PERIOD))
				.atMost(LEASE.multipliedBy(3))
				.until(() -> leaders().isEmpty());
			long killed = System.nanoTime();
			leader.kill();
			awaitOneLeader(LEASE.plus(RENEWAL_PERIOD));
			System.out.printf("new leader %d ms after the leader's JVM was killed (lease %d ms)%n",
					Duration.ofNanos(System.nanoTime() - killed).toMillis(), LEASE.toMillis());
		}
	}

	@Test
	void aLeaderWhoseLockIsLostIsRevoked() {
		startInstances(2);
		ConfigurableApplicationContext leader = awaitOneLeader(Duration.ofSeconds(20));
		SharedRedis.redis().delete("lock:" + this.role);
		// the watchdog's next renewal finds the lock gone, and the leader's next heart beat learns it
		await("OnRevokedEvent of the leader whose lock was deleted").atMost(LEASE.plus(RENEWAL_PERIOD))
			.until(() -> LeaderApplication.count(leader, OnRevokedEvent.class) == 1);
		awaitOneLeader(LEASE.plus(RENEWAL_PERIOD));
	}

	@Test
	void aLeaderIsRevokedWhenRedisFreezesPastItsLease() {
		RedisServer.assumeOnPath();
		try (RedisServer own = RedisServer.start()) {
			ConfigurableApplicationContext leader = LeaderApplication.start(own.port(), this.role, LEASE);
			this.instances.add(leader);
			awaitOneLeader(Duration.ofSeconds(20));
			long frozen = System.nanoTime();
			own.freeze();
			try {
				// the leader's heart beat re-enters its lock; once the confirmed lease runs short (a renewal period
				// before its end) that is a round trip, which times out (a command timeout, lease/4); the initiator
				// then unlocks, which times out too, and only then publishes the revocation: about the lease plus a
				// command timeout after the freeze, at worst; twice the lease leaves a loaded machine room
				await("OnRevokedEvent of the leader whose Redis froze").atMost(LEASE.multipliedBy(2))
					.until(() -> LeaderApplication.count(leader, OnRevokedEvent.class) == 1);
				System.out.printf("leader revoked %d ms after its Redis froze (lease %d ms)%n",
						Duration.ofNanos(System.nanoTime() - frozen).toMillis(), LEASE.toMillis());
				assertThat(LeaderApplication.isLeader(leader)).isFalse();
			}
			finally {
				own.resume();
			}
		}
	}

	private void startInstances(int count) {
		for (int i = 0; i < count; i++) {
			this.instances.add(LeaderApplication.start(SharedRedis.server().port(), this.role, LEASE));
		}
	}

	private List<ConfigurableApplicationContext> leaders() {
		return this.instances.stream()
			.filter(ConfigurableApplicationContext::isActive)
			.filter(LeaderApplication::isLeader)
			.toList();
	}

	private ConfigurableApplicationContext awaitOneLeader(Duration atMost) {
		await("exactly one leader").atMost(atMost)
			.pollInterval(Duration.ofMillis(10))
			.until(() -> leaders().size() == 1);
		List<ConfigurableApplicationContext> leaders = leaders();
		assertThat(leaders).hasSize(1);
		return leaders.get(0);
	}

}
