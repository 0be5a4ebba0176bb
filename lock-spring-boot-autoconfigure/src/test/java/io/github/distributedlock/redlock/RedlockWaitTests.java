package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.ExclusionChecker;
import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting on the Redlock store, on 3 real {@code redis-server} processes: a waiter is woken by the holder's
 * release notification long before its retry delay, falls back to that delay when no message comes, an
 * uncontended release publishes nothing, contenders woken together never overlap, and a waiter refused by the
 * holder on every node withdraws nowhere.
 */
class RedlockWaitTests extends RedlockTopologyTests {

	private final ExecutorService threads = Executors.newCachedThreadPool();

	@AfterAll
	void stopThreads() {
		this.threads.shutdownNow();
	}

	@Test
	void aWaiterIsWokenByTheReleaseLongBeforeItsRetryDelay() throws Exception {
		RedlockLockClient holder = this.topology.client();
		// its fallback after a refusal is 2.5 to 5 s: only a notification wakes it sooner
		RedlockLockClient waiter = listening(this.topology.client(Duration.ofMillis(250), Duration.ofSeconds(5)));
		LockHandle held = RedlockTopology.acquired(holder, RedlockTopology.request("wake").build());
		awaitHeldEverywhere("wake");
		CompletableFuture<LockHandle> waiting = acquireInBackground(waiter, "wake");
		awaitRefusedEverywhere("wake");
		long released = System.nanoTime();
		held.close();
		try (LockHandle handle = waiting.get(5, TimeUnit.SECONDS)) {
			long afterRelease = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
			assertThat(afterRelease).as("ms from the release to the waiter's hold").isLessThan(1000);
			assertThat(handle.fencingToken()).isGreaterThan(held.fencingToken());
		}
	}

	@Test
	void aWaiterWhoseNotificationIsLostAcquiresAfterItsRetryDelay() throws Exception {
		RedlockLockClient holder = this.topology.client();
		RedlockLockClient waiter = listening(this.topology.client(Duration.ofMillis(250), Duration.ofMillis(400)));
		LockHandle held = RedlockTopology.acquired(holder, RedlockTopology.request("lost-message").build());
		awaitHeldEverywhere("lost-message");
		CompletableFuture<LockHandle> waiting = acquireInBackground(waiter, "lost-message");
		awaitRefusedEverywhere("lost-message");
		// as if the messages were lost: the release publishes only where a waiter marked the key
		this.topology.servers.forEach((server) -> server.admin().hdel(RedlockTopology.PREFIX + "lost-message", "w"));
		this.topology.servers.forEach((server) -> server.admin().configResetstat());
		held.close();
		waiting.get(5, TimeUnit.SECONDS).close();
		assertThat(publishes()).isZero();
	}

	@Test
	void anUncontendedReleasePublishesNothing() throws Exception {
		RedlockLockClient client = this.topology.client();
		this.topology.servers.forEach((server) -> server.admin().configResetstat());
		for (int i = 0; i < 5; i++) {
			RedlockTopology.acquired(client, RedlockTopology.request("alone").build()).close();
		}
		this.topology.awaitGone("alone");
		assertThat(publishes()).isZero();
	}

	@Test
	void contendersWokenByReleasesNeverOverlapAndTheirTokensIncrease() throws Exception {
		ExclusionChecker checker = new ExclusionChecker();
		List<RedlockLockClient> clients = List.of(
				listening(this.topology.client(Duration.ofMillis(250), Duration.ofMillis(500))),
				listening(this.topology.client(Duration.ofMillis(250), Duration.ofMillis(500))));
		Concurrently.run(4, 60, (thread) -> {
			for (int i = 0; i < 5; i++) {
				checker.call(() -> {
					try (LockHandle handle = RedlockTopology.acquired(clients.get(thread % 2),
							RedlockTopology.request("woken").timeout(Duration.ofSeconds(30)).build())) {
						checker.body(handle.fencingToken());
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						throw new IllegalStateException(ex);
					}
				});
			}
		});
		assertThat(checker.problems(1.0)).as(checker.summary()).isEmpty();
		assertThat(checker.overlaps()).isZero();
		assertThat(checker.tokenRegressions()).isZero();
		assertThat(checker.lostUpdates()).isZero();
	}

	@Test
	void aWaiterRefusedByTheHolderOnEveryNodeWithdrawsNowhere() throws Exception {
		RedlockLockClient holder = this.topology.client();
		// refused, it votes again within 50 to 100 ms: a dozen rounds or more in its 1.5 s
		RedlockLockClient waiter = listening(this.topology.client(Duration.ofMillis(250), Duration.ofMillis(100)));
		try (LockHandle held = RedlockTopology.acquired(holder, RedlockTopology.request("refused").build())) {
			awaitHeldEverywhere("refused");
			this.topology.servers.forEach((server) -> server.admin().configResetstat());
			assertThat(waiter.acquire(RedlockTopology.request("refused").timeout(Duration.ofMillis(1500)).build()))
				.as("busy: the holder has it").isNull();
			for (RedisServer server : this.topology.servers) {
				assertThat(scriptCalls(server)).as("votes on a node").isGreaterThanOrEqualTo(5);
			}
			// every node answered every round (the round waits for the nodes that answer) and refused: its vote ran
			// and took nothing, so no round is withdrawn anywhere, and no node gets a withdrawal marker
			List<String> markers = new ArrayList<>();
			for (RedisServer server : this.topology.servers) {
				markers.addAll(server.admin().keys(RedlockTopology.PREFIX + "refused~withdrawn:*"));
			}
			assertThat(markers).as("withdrawal markers").isEmpty();
		}
	}

	/** EVAL and EVALSHA calls a node ran since the last CONFIG RESETSTAT. */
	private static long scriptCalls(RedisServer server) {
		return RedlockTopology.calls(server, "eval(?:sha)?");
	}

	private CompletableFuture<LockHandle> acquireInBackground(RedlockLockClient client, String key) {
		// a handle may be closed by any thread
		return CompletableFuture.supplyAsync(() -> {
			try {
				return RedlockTopology.acquired(client,
						RedlockTopology.request(key).timeout(Duration.ofSeconds(20)).build());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}, this.threads);
	}

	/**
	 * Waits until the holder has the key on every node: its acquisition returns once a quorum granted, and the
	 * last node may still be running its vote.
	 */
	private void awaitHeldEverywhere(String key) {
		RedlockTopology.soon().untilAsserted(() -> {
			for (int node = 0; node < this.topology.servers.size(); node++) {
				assertThat(this.topology.ownerOn(node, key)).isNotNull();
			}
		});
	}

	/** Waits until the waiter's vote was refused on every node: it marked the holder's key there. */
	private void awaitRefusedEverywhere(String key) {
		RedlockTopology.soon().untilAsserted(() -> {
			for (RedisServer server : this.topology.servers) {
				assertThat(server.admin().hget(RedlockTopology.PREFIX + key, "w")).isEqualTo("1");
			}
		});
	}

	private static RedlockLockClient listening(RedlockLockClient client) {
		RedlockTopology.soon().until(() -> client.notifications().listening() == 3);
		return client;
	}

	/** PUBLISH commands the nodes ran, scripts' included, since the last CONFIG RESETSTAT or start. */
	private long publishes() {
		long total = 0;
		for (RedisServer server : this.topology.servers) {
			total += RedlockTopology.calls(server, "publish");
		}
		return total;
	}

}
