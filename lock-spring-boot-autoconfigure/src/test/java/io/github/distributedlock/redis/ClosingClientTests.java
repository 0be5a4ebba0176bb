package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A client closed while one of its threads waits for a lock (an application shutting down): the wait ends with a
 * clear failure instead of retrying without pause, its place in the Redis queue is withdrawn, and the holder's
 * release never grants the lock to the claim of a client that is gone (issue 18, item 1).
 */
class ClosingClientTests {

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private final List<RedisLockClient> clients = new ArrayList<>();

	private final String key = "closing:" + UUID.randomUUID();

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	private RedisLockClient newClient() {
		RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.clients.add(client);
		return client;
	}

	private boolean hasClaimOf(RedisLockClient client) {
		return redis.<String, String>opsForHash().keys("lock:" + this.key).stream()
			.anyMatch((field) -> field.startsWith("q:" + client.getClientId()));
	}

	@Test
	void closingAClientEndsItsWaitsAndNoReleaseGrantsTheLockToTheirClaims() throws Exception {
		RedisLockClient holder = newClient();
		RedisLockClient closing = newClient();
		RedisLockClient third = newClient();
		assertThat((holder.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(30)).interruptible(false)
				.releasedByThread().build()) != null))
			.isTrue();
		CompletableFuture<Object> waiting = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			try {
				waiting.complete((closing.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(30))
						.timeout(Duration.ofSeconds(20)).interruptible(false).releasedByThread().build()) != null));
			}
			catch (Throwable ex) {
				waiting.complete(ex);
			}
		});
		waiter.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> hasClaimOf(closing));

		closing.close();
		// the wait ends at once, with a failure that says why (before: it retried without pause for ever)
		assertThat(waiting.get(5, TimeUnit.SECONDS)).isInstanceOf(DistributedLockException.class)
			.asString().contains("closed");
		// and its place in the queue went with it, before the connection factory could be stopped
		assertThat(hasClaimOf(closing)).isFalse();

		holder.release(this.key, LockType.REENTRANT);
		// before: the release granted the lock to the closed client's claim, which held it for its 30 s lease
		assertThat((third.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(30)).interruptible(false)
				.releasedByThread().build()) != null))
			.isTrue();
		third.release(this.key, LockType.REENTRANT);
		waiter.join(5000);
	}

	@Test
	void aClosedClientRecordsNoNewHold() throws Exception {
		RedisLockClient closing = newClient();
		closing.close();
		assertThat(closing.heldLocks()).isEmpty();
		try {
			closing.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(30)).interruptible(false)
					.releasedByThread().build());
		}
		catch (DistributedLockException ex) {
			assertThat(ex).hasMessageContaining("closed");
		}
		assertThat(closing.heldLocks()).isEmpty();
		assertThat(redis.hasKey("lock:" + this.key)).isFalse();
	}

}
