package io.github.distributedlock.redis;

import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.Owners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.LockHolder;
import io.github.distributedlock.test.ReadWriteChecker;
import io.github.distributedlock.test.RedisClientLibrary;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Read/write locks against a real redis-server: shared readers, exclusive writers, reentrancy, downgrade,
 * refused upgrade, no writer starvation, per-reader leases, and wake-up of waiting readers.
 */
@SuppressWarnings("try") // a resource that only holds a lock for the block is not referenced in it
class ReadWriteLockTests {

	private RedisConnectionFactory connectionFactory;

	private static StringRedisTemplate redis;

	private final List<RedisLockClient> clients = new ArrayList<>();

	private DistributedLockTemplate first;

	private DistributedLockTemplate second;

	private String key;

	@BeforeAll
	static void connect() {
		redis = SharedRedis.redis();
	}

	/**
	 * The Redis client library of the lock clients under test: a subclass that returns another runs every test
	 * on that one. (The assertions read Redis through Lettuce.)
	 */
	RedisClientLibrary clientLibrary() {
		return RedisClientLibrary.LETTUCE;
	}

	@BeforeEach
	void setUp() {
		this.connectionFactory = SharedRedis.connectionFactory(clientLibrary());
		this.first = newTemplate(Duration.ofSeconds(30));
		this.second = newTemplate(Duration.ofSeconds(30));
		this.key = "rw:" + UUID.randomUUID();
	}

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	private DistributedLockTemplate newTemplate(Duration lease) {
		RedisLockClient client = new RedisLockClient(this.connectionFactory, "lock:");
		this.clients.add(client);
		return new DistributedLockTemplate(client, lease, Duration.ofSeconds(30));
	}

	private String redisKey() {
		return "lock:" + this.key;
	}

	@Test
	void manyReadersHoldTheLockAtOnceAcrossInstances() throws Exception {
		CyclicBarrier allInside = new CyclicBarrier(4);
		ExecutorService pool = Executors.newFixedThreadPool(4);
		try {
			List<Future<Integer>> readers = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				Lock read = ((i % 2 == 0) ? this.first : this.second).getReadWriteLock(this.key).readLock();
				readers.add(pool.submit(() -> {
					read.lock();
					try {
						// returns only when all four readers are inside together
						return allInside.await(10, TimeUnit.SECONDS);
					}
					finally {
						read.unlock();
					}
				}));
			}
			for (Future<Integer> reader : readers) {
				reader.get(20, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void aWriterExcludesEveryReaderAndEveryOtherWriter() throws Exception {
		ReadWriteChecker checker = new ReadWriteChecker(redis, "version:" + this.key);
		Concurrently.run(8, 120, (thread) -> {
			ReadWriteLock lock = ((thread % 2 == 0) ? this.first : this.second).getReadWriteLock(this.key);
			for (int i = 0; i < 25; i++) {
				if (thread < 2) {
					lock.writeLock().lock();
					try {
						checker.write();
					}
					finally {
						lock.writeLock().unlock();
					}
				}
				else {
					lock.readLock().lock();
					try {
						checker.read();
					}
					finally {
						lock.readLock().unlock();
					}
				}
			}
		});
		assertThat(checker.violations()).isZero();
		assertThat(checker.tornReads()).isZero();
		assertThat(checker.version()).isEqualTo(2 * 2 * 25);
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void readAndWriteAreReentrant() {
		ReadWriteLock lock = this.first.getReadWriteLock(this.key);
		lock.readLock().lock();
		lock.readLock().lock();
		lock.readLock().unlock();
		assertThat(this.second.getReadWriteLock(this.key).writeLock().tryLock()).isFalse();
		lock.readLock().unlock();
		lock.writeLock().lock();
		lock.writeLock().lock();
		lock.writeLock().unlock();
		assertThat(this.second.getReadWriteLock(this.key).readLock().tryLock()).isFalse();
		lock.writeLock().unlock();
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void theWriterMayDowngradeAndReleaseWriteFirst() throws Exception {
		ReadWriteLock lock = this.first.getReadWriteLock(this.key);
		lock.writeLock().lock();
		lock.readLock().lock();
		lock.writeLock().unlock();
		// now only a reader: other readers join, writers stay out
		ExecutorService pool = Executors.newSingleThreadExecutor();
		try {
			ReadWriteLock other = this.second.getReadWriteLock(this.key);
			assertThat(pool.submit(() -> {
				boolean read = other.readLock().tryLock();
				if (read) {
					other.readLock().unlock();
				}
				return read;
			}).get()).isTrue();
			assertThat(pool.submit(() -> other.writeLock().tryLock()).get()).isFalse();
		}
		finally {
			pool.shutdownNow();
		}
		lock.readLock().unlock();
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void theWriterMayDowngradeAndReleaseReadFirst() {
		ReadWriteLock lock = this.first.getReadWriteLock(this.key);
		lock.writeLock().lock();
		lock.readLock().lock();
		lock.readLock().unlock();
		assertThat(redis.opsForHash().get(redisKey(), "w")).isNotNull();
		lock.writeLock().unlock();
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void aReaderAskingForTheWriteLockIsRefusedAtOnceNotDeadlocked() {
		ReadWriteLock lock = this.first.getReadWriteLock(this.key);
		lock.readLock().lock();
		try {
			long start = System.nanoTime();
			assertThatThrownBy(() -> lock.writeLock().tryLock(10, TimeUnit.SECONDS))
				.isInstanceOf(IllegalMonitorStateException.class)
				.hasMessageContaining("upgrade")
				.hasMessageContaining("release the read lock first");
			assertThatThrownBy(() -> this.first.execute(
					LockDefinition.builder(this.key).type(LockType.WRITE).build(), () -> "never"))
				.isInstanceOf(IllegalMonitorStateException.class);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			// the script refuses it too, should a client not know that it holds the read side
			String owner = Owners.current(this.clients.get(0));
			long refused = ScriptResults.first(redis, WriteKind.ACQUIRE, redisKey(), owner, "1000", "0", "0");
			assertThat(refused).isEqualTo(LockScripts.UPGRADE);
		}
		finally {
			lock.readLock().unlock();
		}
	}

	@Test
	void aSteadyStreamOfReadersDoesNotStarveAWriter() throws Exception {
		Duration readLease = Duration.ofSeconds(1);
		DistributedLockTemplate readersA = newTemplate(readLease);
		DistributedLockTemplate readersB = newTemplate(readLease);
		AtomicBoolean stop = new AtomicBoolean();
		AtomicInteger readersInside = new AtomicInteger();
		AtomicLong reads = new AtomicLong();
		AtomicInteger violations = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(8);
		try {
			for (int t = 0; t < 8; t++) {
				Lock read = ((t % 2 == 0) ? readersA : readersB).getReadWriteLock(this.key).readLock();
				long stagger = t * 5L;
				pool.submit(() -> {
					Thread.sleep(stagger); // readers out of step, as independent requests are
					while (!stop.get()) {
						read.lock();
						try {
							readersInside.incrementAndGet();
							// the read's work: 8 readers of 20-60 ms each overlap, so some reader holds the lock
							// at almost every moment and a writer gets in only by making new readers wait
							Thread.sleep(ThreadLocalRandom.current().nextLong(20, 60));
							readersInside.decrementAndGet();
							reads.incrementAndGet();
						}
						finally {
							read.unlock();
						}
					}
					return null;
				});
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> reads.get() > 40);
			Lock write = this.first.getReadWriteLock(this.key).writeLock();
			for (int i = 0; i < 3; i++) {
				long start = System.nanoTime();
				// within three read leases, although readers never stop coming
				assertThat(write.tryLock(3 * readLease.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
				try {
					if (readersInside.get() != 0) {
						violations.incrementAndGet();
					}
				}
				finally {
					write.unlock();
				}
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(readLease.multipliedBy(3));
				long readsBefore = reads.get();
				await().atMost(Duration.ofSeconds(10)).until(() -> reads.get() > readsBefore + 16);
			}
		}
		finally {
			stop.set(true);
			pool.shutdown();
			assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(violations).hasValue(0);
	}

	@Test
	void aDeadReadersShareEndsWithItsOwnLeaseWhileOtherReadersRenewTheirs() throws Exception {
		long leaseMillis = 2000;
		// the living reader's lease is longer (its renewals must keep its share on a loaded machine too); the
		// dead reader's share must go with its own, shorter lease, not the key's
		DistributedLockTemplate reader = newTemplate(Duration.ofMillis(5000));
		Lock read = reader.getReadWriteLock(this.key).readLock();
		read.lock();
		try (HolderProcess dead = new HolderProcess(SharedRedis.server().port(), this.key, leaseMillis, "READ")) {
			assertThat(redis.opsForHash().hasKey(redisKey(), "r:" + dead.owner())).isTrue();
			dead.kill();
			// the other reader's renewals keep the lock alive; the dead reader's share goes with its lease
			await().atMost(Duration.ofMillis(leaseMillis * 4))
				.until(() -> !redis.opsForHash().hasKey(redisKey(), "r:" + dead.owner()));
			assertThat(redis.<String, String>opsForHash().keys(redisKey())).filteredOn((field) -> field.startsWith("r:"))
				.hasSize(1);
			assertThat(this.second.getReadWriteLock(this.key).writeLock().tryLock()).isFalse();
		}
		finally {
			read.unlock();
		}
		Lock write = this.second.getReadWriteLock(this.key).writeLock();
		assertThat(write.tryLock()).isTrue();
		write.unlock();
	}

	@Test
	void aWritersReleaseWakesTheWaitingReadersTogether() throws Exception {
		int readers = 4;
		CyclicBarrier allInside = new CyclicBarrier(readers);
		AtomicLong lastAcquired = new AtomicLong();
		try (LockHolder writer = new LockHolder(this.first.getReadWriteLock(this.key).writeLock())) {
			ExecutorService pool = Executors.newFixedThreadPool(readers);
			try {
				CountDownLatch started = new CountDownLatch(readers);
				List<Future<?>> futures = new ArrayList<>();
				for (int i = 0; i < readers; i++) {
					Lock read = this.second.getReadWriteLock(this.key).readLock();
					futures.add(pool.submit(() -> {
						started.countDown();
						read.lock();
						try {
							lastAcquired.accumulateAndGet(System.nanoTime(), Math::max);
							allInside.await(10, TimeUnit.SECONDS);
						}
						finally {
							read.unlock();
						}
						return null;
					}));
				}
				assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
				await().atMost(Duration.ofSeconds(5)).until(() -> ClientProbe.of(this.clients.get(1)).waitingKeys() == 1);
				long releasedAt = System.nanoTime();
				writer.close();
				for (Future<?> future : futures) {
					future.get(10, TimeUnit.SECONDS);
				}
				// the writer's lease is 30 s: only the release notification brings them in this soon
				assertThat(Duration.ofNanos(lastAcquired.get() - releasedAt)).isLessThan(Duration.ofSeconds(3));
			}
			finally {
				pool.shutdownNow();
			}
		}
	}

	@Test
	void theReadersWaitingWhenAWriterReleasesEnterBeforeTheNextWriter() throws Exception {
		int readers = 4;
		DistributedLockTemplate nextWriterInstance = newTemplate(Duration.ofSeconds(30));
		CyclicBarrier allInside = new CyclicBarrier(readers);
		ExecutorService pool = Executors.newFixedThreadPool(readers + 1);
		CountDownLatch testDone = new CountDownLatch(1);
		try (LockHolder writer = new LockHolder(this.first.getReadWriteLock(this.key).writeLock())) {
			List<Future<Integer>> readerResults = new ArrayList<>();
			for (int i = 0; i < readers; i++) {
				Lock read = this.second.getReadWriteLock(this.key).readLock();
				readerResults.add(pool.submit(() -> {
					read.lock();
					try {
						return allInside.await(10, TimeUnit.SECONDS);
					}
					finally {
						read.unlock();
					}
				}));
			}
			await().atMost(Duration.ofSeconds(5))
				.until(() -> redis.<String, String>opsForHash().keys(redisKey()).stream().filter((f) -> f.startsWith("rw:")).count() == readers);
			// a second writer waits too, and would keep the lock until the test ends
			Lock nextWrite = nextWriterInstance.getReadWriteLock(this.key).writeLock();
			pool.submit(() -> {
				nextWrite.lock();
				try {
					testDone.await();
				}
				finally {
					nextWrite.unlock();
				}
				return null;
			});
			await().atMost(Duration.ofSeconds(5))
				.until(() -> redis.<String, String>opsForHash().keys(redisKey()).stream().anyMatch((f) -> f.startsWith("ww:")));
			writer.close();
			// all four readers inside at once: none of them was left behind the second writer
			for (Future<Integer> reader : readerResults) {
				reader.get(15, TimeUnit.SECONDS);
			}
		}
		finally {
			testDone.countDown();
			pool.shutdown();
			assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void allStateOfALockIsOneHashAndAWaitingWritersClaimIsWithdrawnWhenItGivesUp() throws Exception {
		try (LockHolder reader = new LockHolder(this.first.getReadWriteLock(this.key).readLock())) {
			ExecutorService pool = Executors.newSingleThreadExecutor();
			try {
				Lock write = this.second.getReadWriteLock(this.key).writeLock();
				Future<Boolean> writer = pool.submit(() -> write.tryLock(800, TimeUnit.MILLISECONDS));
				await().atMost(Duration.ofSeconds(5))
					.until(() -> redis.<String, String>opsForHash().keys(redisKey()).stream().anyMatch((f) -> f.startsWith("ww:")));
				// once the writer has waited for the grace (5 ms, see rw_common.lua), a new reader queues behind it
				await().atMost(Duration.ofSeconds(5)).until(() -> claimAgeMillis() >= 5);
				Lock lateReader = this.first.getReadWriteLock(this.key).readLock();
				ExecutorService other = Executors.newSingleThreadExecutor();
				try {
					assertThat(other.submit(() -> lateReader.tryLock()).get()).isFalse();
				}
				finally {
					other.shutdownNow();
				}
				assertThat(writer.get(5, TimeUnit.SECONDS)).isFalse();
				assertThat(redis.<String, String>opsForHash().keys(redisKey())).noneMatch((f) -> f.startsWith("ww:"));
				assertThat(redis.keys("*" + this.key + "*")).containsExactly(redisKey());
			}
			finally {
				pool.shutdownNow();
			}
		}
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	/** How long the waiting writer's claim has existed, by Redis TIME, in milliseconds. */
	private long claimAgeMillis() {
		String claim = redis.<String, String>opsForHash().entries(redisKey()).entrySet().stream()
			.filter((entry) -> entry.getKey().startsWith("ww:")).map(Map.Entry::getValue).findFirst().orElseThrow();
		long now = SharedRedis.timeMillis();
		return now - Long.parseLong(claim.substring(claim.indexOf(':') + 1));
	}

	@Test
	void aHardReadLeaseIsLostAndReportedAtRelease() throws Exception {
		RedisLockClient client = this.clients.get(0);
		assertThat((client.acquire(LockRequest.builder(this.key).type(LockType.READ).lease(Duration.ofMillis(150))
				.autoRenew(false).interruptible(false).releasedByThread().build()) != null)).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> !redis.hasKey(redisKey()));
		Lock write = this.second.getReadWriteLock(this.key).writeLock();
		assertThat(write.tryLock()).isTrue();
		assertThatThrownBy(() -> client.release(this.key, LockType.READ)).isInstanceOf(LockLostException.class);
		assertThat(redis.opsForHash().get(redisKey(), "w")).isNotNull();
		write.unlock();
	}

}
