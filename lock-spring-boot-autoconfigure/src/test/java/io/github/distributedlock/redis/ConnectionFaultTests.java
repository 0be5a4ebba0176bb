package io.github.distributedlock.redis;

import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.Owners;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostEvent;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.Succession;
import io.github.distributedlock.test.TcpProxy;
import io.lettuce.core.KillArgs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.context.ApplicationListener;

import static io.github.distributedlock.test.LockApplications.template;
import static io.github.distributedlock.test.LockApplications.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Faults between the application and one Redis: connections killed by the server ({@code CLIENT KILL}), a slow
 * network and a network split (through a {@link TcpProxy}), and a frozen server ({@code kill -STOP}). One
 * server for the class, which these tests kill connections of and freeze; each test uses keys of its own.
 */
class ConnectionFaultTests {

	/** Command timeout of the applications ({@code spring.data.redis.timeout}). */
	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	private static RedisServer server;

	@BeforeAll
	static void startServer() {
		RedisServer.assumeOnPath();
		server = RedisServer.start();
	}

	@AfterAll
	static void stopServer() {
		if (server != null) {
			server.close();
		}
	}

	/** Applications on {@code port}: the server's, or a proxy's in front of it. */
	private static ApplicationContextRunner application(int port, String... properties) {
		return LockApplications.runner("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + port,
				"spring.data.redis.timeout=" + COMMAND_TIMEOUT.toMillis() + "ms", "distributed-lock.lease=30s")
			.withPropertyValues(properties);
	}

	@Test
	void afterClientKillOfTheCommandConnectionRenewalsResume() {
		application(server.port()).run((context) -> {
			RedisLockClient client = context.getBean(RedisLockClient.class);
			String key = "kill:" + UUID.randomUUID();
			Duration lease = Duration.ofMillis(900);
			assertThat((client.acquire(LockRequest.builder(key).lease(lease).interruptible(false).releasedByThread()
					.build()) != null)).isTrue();
			String owner = Owners.current(client);
			for (int kill = 0; kill < 3; kill++) {
				assertThat(server.admin().clientKill(KillArgs.Builder.typeNormal())).isPositive();
				// held past its lease: renewed over a new connection
				await().during(lease.plusMillis(300))
					.atMost(lease.multipliedBy(3))
					.until(() -> server.admin().hexists(client.redisKey(key), owner));
			}
			assertThat(ClientProbe.of(client).lostReason(key, LockType.REENTRANT)).isNull();
			client.release(key, LockType.REENTRANT);
			assertThat(server.admin().exists(client.redisKey(key))).isZero();
		});
	}

	@Test
	void afterClientKillOfThePubSubConnectionReleasesStillWakeWaiters() {
		ApplicationContextRunner application = application(server.port());
		LockApplications.runTwo(application, (first, second) -> {
			for (int kill = 0; kill < 3; kill++) {
				assertThat(server.admin().clientKill(KillArgs.Builder.typePubsub())).isPositive();
				// the subscriptions are made again (both instances listen on two channels)
				await().atMost(Duration.ofSeconds(10)).until(() -> subscribedClients() == 2);
				Duration wake = ReleaseWakeups.readerReleaseWakesWriter(template(first), template(second),
						"kill-pubsub:" + UUID.randomUUID(), redis(first));
				System.out.println("[faults] CLIENT KILL TYPE pubsub: release to waiter of another instance after "
						+ wake.toMillis() + " ms");
				// the reader's lease is 30 s: only a release notification explains a quick wake-up
				assertThat(wake).isLessThan(Duration.ofSeconds(5));
			}
		});
	}

	/**
	 * A client closed while its release subscription is being made, on a link slow enough (3 s each way) that the
	 * connect takes many seconds, does not wait for that connect: the container's stop waits for a subscription
	 * under way, and Lettuce's connect of a pub/sub connection has no timeout of its own (once, in a test, it waited
	 * for ever: the connection factory had been stopped during the connect, and the application's shutdown hung).
	 */
	@Test
	void closingAClientWhoseSubscriptionIsStillConnectingDoesNotWaitForTheConnect() throws Exception {
		try (TcpProxy proxy = new TcpProxy(server.host(), server.port())) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(server.host(), proxy.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(30)).build());
			factory.afterPropertiesSet();
			factory.start();
			proxy.latency(Duration.ofSeconds(3));
			RedisLockClient client = new RedisLockClient(factory, "lock:");
			try {
				await().atMost(Duration.ofSeconds(40)).until(ConnectionFaultTests::aSubscriptionIsBeingMade);
				long started = System.nanoTime();
				client.close();
				long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
				System.out.println("[faults] closing a client whose subscription was connecting took " + tookMillis
						+ " ms");
				// without the bound, the close waits for the rest of the connect: at least one 6 s round trip
				assertThat(tookMillis).isLessThan(ClassicSubscription.CLOSE_WAIT_MILLIS + 1500);
			}
			finally {
				proxy.latency(Duration.ZERO);
				client.close();
				factory.destroy();
			}
		}
	}

	/** Whether some thread is inside the subscription container's start, making the subscription. */
	private static boolean aSubscriptionIsBeingMade() {
		return Thread.getAllStackTraces().values().stream().flatMap(Arrays::stream).anyMatch((frame) ->
				frame.getClassName().equals(RedisMessageListenerContainer.class.getName())
						&& frame.getMethodName().equals("lazyListen"));
	}

	private static long subscribedClients() {
		return server.admin().clientList().lines().filter((line) -> line.contains(" sub=2 ")).count();
	}

	@Test
	void withFiveMillisecondsOfLatencyEachWayAThousandLocksWithOneSecondLeasesAreKeptForTenSeconds()
			throws Exception {
		try (TcpProxy proxy = new TcpProxy(server.host(), server.port())) {
			proxy.latency(Duration.ofMillis(5));
			String prefix = "latency-" + UUID.randomUUID() + ":";
			// a command timeout above the round trips of a loaded machine: a renewal is late, not failed
			application(proxy.port(), "distributed-lock.key-prefix=" + prefix, "spring.data.redis.timeout=2s")
				.run((context) -> {
				RedisLockClient client = context.getBean(RedisLockClient.class);
				int threads = 20;
				int locksPerThread = 50;
				CountDownLatch held = new CountDownLatch(threads);
				CountDownLatch release = new CountDownLatch(1);
				CompletableFuture<Void> holders = CompletableFuture.runAsync(() -> {
					try {
						Concurrently.run(threads, 60, (thread) -> {
							for (int i = 0; i < locksPerThread; i++) {
								assertThat((client.acquire(LockRequest.builder("lock-" + thread + "-" + i)
										.lease(Duration.ofSeconds(1)).interruptible(false).releasedByThread()
										.build()) != null)).isTrue();
							}
							held.countDown();
							release.await();
							// a lost lock throws LockLostException here
							for (int i = 0; i < locksPerThread; i++) {
								client.release("lock-" + thread + "-" + i, LockType.REENTRANT);
							}
						});
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				});
				assertThat(held.await(60, TimeUnit.SECONDS)).isTrue();
				long heldAt = System.nanoTime();
				try {
					// all 1,000 stay in Redis for ten seconds, ten one-second leases
					await().during(Duration.ofSeconds(10))
						.atMost(Duration.ofSeconds(15))
						.pollInterval(Duration.ofMillis(250))
						.until(() -> countKeys(prefix) == threads * locksPerThread);
				}
				finally {
					release.countDown();
				}
				holders.get(60, TimeUnit.SECONDS);
				System.out.println("[faults] 5 ms latency each way: 1,000 locks with 1 s leases kept for "
						+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - heldAt) + " ms, none lost");
				assertThat(countKeys(prefix)).isZero();
			});
		}
	}

	/** Counts the lock keys under a key prefix (not the client's server-life marker, which outlives the locks). */
	private static long countKeys(String prefix) {
		return server.admin().keys(prefix + "*").stream().filter((key) -> !key.endsWith("__server-life")).count();
	}

	@Test
	void aPartitionLongerThanTheLeaseIsReportedToTheHolderWhoseLateReleaseLeavesTheNextHolderAlone()
			throws Exception {
		try (TcpProxy proxy = new TcpProxy(server.host(), server.port())) {
			// the instance cut off tells a LockObserver bean of its own (which the auto-configuration hands to the
			// lock client with the one that publishes LockLostEvent), and listens for the events
			application(proxy.port()).withBean(Told.class).run((cutOff) -> application(server.port()).run((other) -> {
				RedisLockClient cutOffClient = cutOff.getBean(RedisLockClient.class);
				Told told = cutOff.getBean(Told.class);
				RedisLockClient otherClient = other.getBean(RedisLockClient.class);
				String key = "partition:" + UUID.randomUUID();
				Succession succession = new Succession(key);
				Duration lease = Duration.ofSeconds(1);
				LockHandle cutOffHold = cutOffClient.acquire(LockRequest.builder(key).lease(lease).interruptible(false)
						.build());
				assertThat(cutOffHold).isNotNull();
				String cutOffOwner = Owners.current(cutOffClient);
				succession.acquired("instance behind the partition", cutOffHold.fencingToken());
				FencedRegister cutOffWrites = new FencedRegister(redis(cutOff), "data:" + key);
				FencedRegister otherWrites = new FencedRegister(redis(other), "data:" + key);
				assertThat(cutOffWrites.write(cutOffHold.fencingToken(), "before the partition")).isTrue();

				proxy.partition();
				long partitionedAt = System.nanoTime();
				// the other instance takes the lock once the lease of the one cut off ran out
				LockHandle otherHold = otherClient.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(30))
						.timeout(Duration.ofSeconds(10)).interruptible(false).build());
				assertThat(otherHold).isNotNull();
				succession.acquired("other instance", otherHold.fencingToken());
				assertThat(otherWrites.write(otherHold.fencingToken(), "new holder")).isTrue();
				long takenOverAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - partitionedAt);
				String otherOwner = Owners.current(otherClient);
				// the holder cut off learns it from its watchdog, while the network is still split: its lock observers
				// are told, and a LockLostEvent is published, before the holder releases
				await().pollInSameThread()
					.atMost(Duration.ofSeconds(10))
					.until(() -> ClientProbe.of(cutOffClient).lostReason(key, LockType.REENTRANT) != null);
				await("the loss told to the observer and published as a LockLostEvent, before the release")
					.atMost(Duration.ofSeconds(5))
					.until(() -> told.things().size() >= 2);
				assertThat(told.things()).containsExactlyInAnyOrder("lost " + key, "LockLostEvent " + key);
				assertThat(told.reasons()).containsExactly(ClientProbe.of(cutOffClient).lostReason(key, LockType.REENTRANT));
				proxy.heal();

				// its late write, sent when the network is back, is refused by the new holder's greater token
				assertThat(cutOffWrites.write(cutOffHold.fencingToken(), "late write")).isFalse();
				assertThat(otherWrites.value()).isEqualTo("new holder");
				assertThatThrownBy(cutOffHold::close).isInstanceOf(LockLostException.class);
				// told once, before the release, which comes last
				assertThat(told.things()).hasSize(3).endsWith("released " + key + " (lost)");
				// what the one cut off sent during the partition and after it changed nothing of the new holder's
				assertThat(server.admin().hgetall(otherClient.redisKey(key))).containsEntry(otherOwner, "1")
					.doesNotContainKey(cutOffOwner);
				assertThat(server.admin().pttl(otherClient.redisKey(key))).isGreaterThan(20_000);
				assertThat(succession.holders()).containsExactly("instance behind the partition", "other instance");
				System.out.println("[faults] partition: lock with a 1 s lease taken over by another instance after "
						+ takenOverAfter + " ms");
				otherHold.close();
				server.admin().del("data:" + key);
			}));
		}
	}

	@Test
	void whileRedisIsFrozenAcquisitionsFailWithinTheirAcquireTimeoutAndWorkAgainWhenItResumes() {
		LockApplications.runTwo(application(server.port()), (first, second) -> {
			DistributedLockTemplate template = template(first);
			RedisLockClient holder = first.getBean(RedisLockClient.class);
			String held = "frozen:held:" + UUID.randomUUID();
			assertThat((holder.acquire(LockRequest.builder(held).lease(Duration.ofSeconds(30)).interruptible(false)
					.releasedByThread().build()) != null))
				.isTrue();
			Duration acquireTimeout = Duration.ofSeconds(3);
			CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> timed(() -> template(second)
				.execute(LockDefinition.builder(held).acquireTimeout(acquireTimeout).build(), () -> "acquired"),
					DistributedLockException.class));
			await().atMost(Duration.ofSeconds(5)).until(() -> holder.isListening()
					&& ClientProbe.of((RedisLockClient) template(second).getClient()).waitingKeys() == 1);

			server.freeze();
			try {
				long failedAfter = timed(() -> template.execute(
						LockDefinition.builder("frozen:" + UUID.randomUUID()).acquireTimeout(acquireTimeout).build(),
						() -> "acquired"), DistributedLockException.class);
				System.out.println("[faults] Redis frozen: acquisition failed after " + failedAfter
						+ " ms (command timeout " + COMMAND_TIMEOUT.toMillis() + " ms)");
				// tries that time out are sent again until the acquire timeout (Redis may be back by then): bounded
				// by the acquire timeout plus one command timeout (plus slack for a loaded machine)
				assertThat(Duration.ofMillis(failedAfter)).isGreaterThanOrEqualTo(acquireTimeout)
					.isLessThan(acquireTimeout.plus(COMMAND_TIMEOUT.multipliedBy(3)));
				long waited = waiter.get(30, TimeUnit.SECONDS);
				System.out.println("[faults] Redis frozen: a waiter with a 3 s acquire timeout came back after "
						+ waited + " ms");
				assertThat(Duration.ofMillis(waited)).isLessThan(acquireTimeout.plus(COMMAND_TIMEOUT.multipliedBy(4)));
			}
			finally {
				server.resume();
			}
			long resumedAt = System.nanoTime();
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(10))
				.ignoreExceptionsInstanceOf(DistributedLockException.class)
				.until(() -> "again".equals(template.execute("frozen:" + UUID.randomUUID(), () -> "again")));
			System.out.println("[faults] Redis resumed: first acquisition after "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumedAt) + " ms");
			// the lock held across the freeze is still its holder's
			assertThat(ClientProbe.of(holder).lostReason(held, LockType.REENTRANT)).isNull();
			holder.release(held, LockType.REENTRANT);
		});
	}

	/**
	 * What the lock client of one instance told its observers of losses and releases, and the
	 * {@link LockLostEvent}s that instance published, in the order they came.
	 */
	static final class Told implements LockObserver, ApplicationListener<LockLostEvent> {

		private final List<String> things = new CopyOnWriteArrayList<>();

		private final List<String> reasons = new CopyOnWriteArrayList<>();

		@Override
		public void lost(String key, LockType type, String reason) {
			this.reasons.add(reason);
			this.things.add("lost " + key);
		}

		@Override
		public void released(String key, LockType type, long heldNanos, boolean lost) {
			this.things.add("released " + key + (lost ? " (lost)" : ""));
		}

		@Override
		public void onApplicationEvent(LockLostEvent event) {
			this.things.add("LockLostEvent " + event.getKey());
		}

		List<String> things() {
			return List.copyOf(this.things);
		}

		List<String> reasons() {
			return List.copyOf(this.reasons);
		}

	}

	/**
	 * Runs {@code action}, which must fail with {@code expected}; returns how long it took, in milliseconds.
	 */
	private static long timed(Runnable action, Class<? extends Throwable> expected) {
		long start = System.nanoTime();
		assertThatThrownBy(action::run).isInstanceOf(expected);
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
	}

}
