package io.github.distributedlock.lost;

import io.github.distributedlock.core.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.OnThread;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A hold that this client knows is lost (its renewal found the key gone, or its hard lease ended) does not keep
 * the client's other owners of the same lock waiting in the client (issue 28, findings 3 and 6): they go to
 * Redis, which decides, and take the lock that other instances could take meanwhile. On the shared redis-server.
 */
class LostHeadTests {

	private final List<RedisLockClient> clients = new ArrayList<>();

	private final String key = "lost-head:" + UUID.randomUUID();

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	private RedisLockClient newClient() {
		RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.clients.add(client);
		return client;
	}

	/**
	 * Finding 3: a try without waiting, from another thread of the same client, while the holder overran its
	 * 300 ms hard lease (its key already expired in Redis), gets the lock. Before, it was refused without asking
	 * Redis, while the same call with a 1 ms timeout got it.
	 */
	@Test
	void aTryWithoutWaitingIsNotRefusedByAHolderThatOverranItsHardLease() throws Exception {
		RedisLockClient client = newClient();
		LockHandle overrun = client.acquire(LockRequest.builder(this.key)
				.lease(Duration.ofMillis(300))
				.autoRenew(false)
				.interruptible(false)
				.build());
		assertThat(overrun).isNotNull();
		overrun.whenLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(5)).until(() -> !SharedRedis.redis().hasKey("lock:" + this.key));
		try (OnThread<LockHandle> other = OnThread.start("try-once", () -> client.acquire(LockRequest.builder(this.key)
				.lease(Duration.ofSeconds(30))
				.interruptible(false)
				.build()))) {
			LockHandle taken = other.get(10);
			assertThat(taken).as("a try without waiting while the head overran its hard lease").isNotNull();
			taken.close();
		}
		assertThatThrownBy(overrun::close).isInstanceOf(LockLostException.class);
	}

	/**
	 * Finding 6: the holder's key is deleted in Redis (as a force-release, an expiry during a partition or a
	 * failover would leave it); once its renewal found it gone, another thread of the same client that asks for
	 * the lock with a 5 s acquire timeout gets it at once, while the lost holder still runs. Before, it waited
	 * for the lost holder's release and failed after 5 s, although the key was free in Redis.
	 */
	@Test
	void aHolderKnownLostDoesNotBlockItsOwnClientsWaiters() throws Exception {
		RedisLockClient client = newClient();
		LockHandle holder = client.acquire(LockRequest.builder(this.key)
				.lease(Duration.ofMillis(3000))
				.interruptible(false)
				.build());
		assertThat(holder).isNotNull();
		// one waiter that queued before the loss, one that comes after it
		try (OnThread<LockHandle> early = OnThread.start("early-waiter", () -> client.acquire(LockRequest.builder(this.key)
				.lease(Duration.ofSeconds(30))
				.timeout(Duration.ofSeconds(5))
				.interruptible(false)
				.build()))) {
			// queued in the client behind the holder: its thread waits for its turn
			await().atMost(Duration.ofSeconds(5)).until(() -> early.thread().getState() == Thread.State.WAITING
					|| early.thread().getState() == Thread.State.TIMED_WAITING);
			SharedRedis.redis().delete("lock:" + this.key);
			holder.whenLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
			long toldAt = System.nanoTime();
			LockHandle first = early.get(10);
			assertThat(first).as("the waiter queued behind the lost holder").isNotNull();
			System.out.println("Lost head: its waiter got the lock "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - toldAt) + " ms after the loss was told");
			first.close();
		}
		try (OnThread<LockHandle> late = OnThread.start("late-waiter", () -> client.acquire(LockRequest.builder(this.key)
				.lease(Duration.ofSeconds(30))
				.timeout(Duration.ofSeconds(5))
				.interruptible(false)
				.build()))) {
			LockHandle second = late.get(10);
			assertThat(second).as("a waiter that came after the loss").isNotNull();
			assertThat(holder.isLost()).isTrue();
			second.close();
		}
		assertThatThrownBy(holder::close).isInstanceOf(LockLostException.class);
	}

}
