package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.test.LockHolder;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * One key used as a reentrant lock and as a read/write lock at once: refused with an error naming the key,
 * and neither lock is corrupted by the other (issue 14, item 1).
 */
@SuppressWarnings("try") // a resource that only holds a lock for the block is not referenced in it
class LockTypeMixTests {

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private final List<RedisLockClient> clients = new ArrayList<>();

	private String key;

	@BeforeEach
	void setUp() {
		this.key = "mix:" + UUID.randomUUID();
	}

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	private DistributedLockTemplate newTemplate(Duration lease) {
		RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.clients.add(client);
		return new DistributedLockTemplate(client, lease, Duration.ofSeconds(5));
	}

	@Test
	void aReentrantWaiterIsRefusedOnAWriteLockAndTheWriterKeepsItsLock() throws Exception {
		// a short lease: the writer is renewed several times while the other instance tries
		ReadWriteLock readWrite = newTemplate(Duration.ofMillis(600)).getReadWriteLock(this.key);
		Lock reentrant = newTemplate(Duration.ofSeconds(30)).getLock(this.key);
		try (LockHolder writer = new LockHolder(readWrite.writeLock())) {
			assertThatIllegalStateException().isThrownBy(() -> reentrant.tryLock(1, TimeUnit.SECONDS))
				.withMessageContaining("lock:" + this.key)
				.withMessageContaining("read/write lock");
			// nothing of the reentrant lock went into the read/write lock's hash
			assertThat(redis.<String, String>opsForHash().keys("lock:" + this.key))
				.noneMatch((field) -> field.startsWith("q:"));
			// renewals still find the writer: its lock outlives several leases
			await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3))
				.until(() -> "1".equals(redis.opsForHash().get("lock:" + this.key, "wc")));
		}
		// the writer's release (in the holder's finally) found its lock: nothing is left
		assertThat(redis.hasKey("lock:" + this.key)).isFalse();
	}

	@Test
	void readersAndWritersAreRefusedOnAReentrantLock() throws Exception {
		ReadWriteLock readWrite = newTemplate(Duration.ofSeconds(30)).getReadWriteLock(this.key);
		try (LockHolder holder = new LockHolder(newTemplate(Duration.ofMillis(600)).getLock(this.key))) {
			assertThatIllegalStateException().isThrownBy(() -> readWrite.writeLock().tryLock(1, TimeUnit.SECONDS))
				.withMessageContaining("lock:" + this.key)
				.withMessageContaining("reentrant lock");
			assertThatIllegalStateException().isThrownBy(() -> readWrite.readLock().tryLock())
				.withMessageContaining("lock:" + this.key);
			await().during(Duration.ofMillis(1000)).atMost(Duration.ofSeconds(3))
				.until(() -> redis.opsForHash().size("lock:" + this.key) == 2);
		}
		assertThat(redis.hasKey("lock:" + this.key)).isFalse();
	}

	@Test
	void aThreadHoldingTheReentrantLockDoesNotWaitForItselfForTheWriteLock() throws Exception {
		DistributedLockTemplate template = newTemplate(Duration.ofSeconds(30));
		Lock reentrant = template.getLock(this.key);
		Lock write = template.getReadWriteLock(this.key).writeLock();
		reentrant.lock();
		try {
			long start = System.nanoTime();
			// before: the write request queued locally behind the thread's own reentrant hold, for the whole wait
			assertThatIllegalStateException().isThrownBy(() -> write.tryLock(3, TimeUnit.SECONDS))
				.withMessageContaining("lock:" + this.key);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			// another thread of the same instance asking for the write side is refused too, not queued
			CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
				try {
					return write.tryLock(3, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			});
			assertThat(other).failsWithin(Duration.ofSeconds(2)).withThrowableThat()
				.havingRootCause().isInstanceOf(IllegalStateException.class);
			assertThat(template.getClient().isHeldByCurrentThread(this.key, LockType.REENTRANT)).isTrue();
		}
		finally {
			reentrant.unlock();
		}
		assertThat(redis.hasKey("lock:" + this.key)).isFalse();
	}

	/** A key that holds another type of value (something else writes there) is refused at once, saying so. */
	@Test
	void aKeyHoldingAValueThatIsNoLockIsRefusedNamingThePrefix() {
		redis.opsForValue().set("lock:" + this.key, "not a lock");
		try {
			DistributedLockTemplate template = newTemplate(Duration.ofSeconds(30));
			assertThatThrownBy(() -> template.acquire(LockDefinition.of(this.key)))
				.isInstanceOf(DistributedLockException.class)
				.hasMessageContaining("lock:" + this.key)
				.hasMessageContaining("holds a value that is no lock")
				.hasMessageContaining("distributed-lock.key-prefix");
			assertThat(redis.opsForValue().get("lock:" + this.key)).isEqualTo("not a lock");
		}
		finally {
			redis.delete("lock:" + this.key);
		}
	}

}
