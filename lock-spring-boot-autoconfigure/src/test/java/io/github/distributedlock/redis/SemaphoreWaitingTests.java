package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.Occupancy;
import io.github.distributedlock.test.OnThread;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Semaphores on the shared redis-server, continued from {@link SemaphoreTests}: waiters of two instances get
 * permits first come, first served, a busy instance does not starve another, and a key is one kind (issue 20).
 */
@SuppressWarnings("try") // a resource that only holds a permit for the block is not referenced in it
class SemaphoreWaitingTests {

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private final List<RedisLockClient> clients = new ArrayList<>();

	private final String key = "sem-wait:" + UUID.randomUUID();

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	private DistributedLockTemplate newInstance() {
		RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.clients.add(client);
		return new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ofSeconds(20));
	}

	private LockDefinition.Builder semaphore(String key, int permits) {
		return LockDefinition.builder(key).permits(permits);
	}

	/**
	 * Both permits held by instance A; then waiters ask in the order b1, a1, b2, a2 (each once the one before it
	 * waits), and every release passes one permit on: they get them in that order, local waiters of the
	 * releasing instance included.
	 */
	@Test
	void waitersOfTwoInstancesGetPermitsInTheOrderTheyAsked() throws Exception {
		DistributedLockTemplate a = newInstance();
		DistributedLockTemplate b = newInstance();
		LockDefinition definition = semaphore(this.key, 2).build();
		LockHandle firstHeld = SemaphoreTests.holdOnNewThread(a, definition);
		LockHandle secondHeld = SemaphoreTests.holdOnNewThread(a, definition);
		List<String> names = List.of("b1", "a1", "b2", "a2");
		List<String> order = new CopyOnWriteArrayList<>();
		List<CountDownLatch> releases = new ArrayList<>();
		List<OnThread<Void>> waiters = new ArrayList<>();
		try {
			for (String name : names) {
				DistributedLockTemplate instance = name.startsWith("a") ? a : b;
				CountDownLatch release = new CountDownLatch(1);
				releases.add(release);
				waiters.add(OnThread.start(name, () -> {
					try (LockHandle handle = instance.acquire(definition)) {
						order.add(name);
						release.await(20, TimeUnit.SECONDS);
					}
					return null;
				}));
				int asked = waiters.size();
				await().atMost(Duration.ofSeconds(10)).until(() -> waiting() >= asked);
			}
			firstHeld.close();
			await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 1);
			secondHeld.close();
			await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 2);
			releases.get(0).countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 3);
			releases.get(1).countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 4);
			assertThat(order).containsExactlyElementsOf(names);
		}
		finally {
			releases.forEach(CountDownLatch::countDown);
		}
		for (OnThread<Void> waiter : waiters) {
			waiter.get(10);
		}
		assertThat(redis.hasKey("lock:" + this.key)).isFalse();
	}

	/** Owners waiting for the key: claims queued in Redis and threads queued inside their own instance. */
	private int waiting() {
		long claims = redis.opsForHash().keys("lock:" + this.key).stream()
			.filter((field) -> field.toString().startsWith("q:"))
			.count();
		int local = this.clients.stream().mapToInt((client) -> ClientProbe.of(client).queuedThreads(this.key)).sum();
		return (int) claims + local;
	}

	/**
	 * Two permits, instance A with 4 threads that ask again at once, instance B with 4 threads that pause a
	 * little between calls: B gets at least half A's rate.
	 */
	@Test
	void aContendedRunGivesTheSlowerInstanceAtLeastHalfTheFasterOnesRate() throws Exception {
		List<DistributedLockTemplate> instances = List.of(newInstance(), newInstance());
		LockDefinition definition = semaphore(this.key, 2).build();
		Occupancy occupancy = new Occupancy();
		AtomicIntegerArray calls = new AtomicIntegerArray(2);
		long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
		Concurrently.run(8, 60, (thread) -> {
			int instance = thread % 2;
			while (System.nanoTime() < end) {
				instances.get(instance).execute(definition, () -> {
					occupancy.enter();
					Occupancy.work(1);
					occupancy.exit();
				});
				calls.incrementAndGet(instance);
				if (instance == 1) {
					Occupancy.work(1);
				}
			}
		});
		int fast = calls.get(0);
		int slow = calls.get(1);
		System.out.println("Permits granted in 2 s: instance A (asks again at once) " + fast + ", instance B " + slow);
		assertThat(occupancy.maxInside()).isEqualTo(2);
		assertThat(Math.min(fast, slow)).isGreaterThanOrEqualTo(Math.max(fast, slow) / 2);
	}

	/**
	 * One key is one kind: another permit count, a plain lock on a semaphore key and the other way round, and a
	 * read/write lock on a semaphore key and the other way round are refused with an error naming the key and
	 * the counts, and the refused call changes nothing in Redis.
	 */
	@Test
	void aKeyIsOneKindAndARefusedUseChangesNothingInRedis() throws Exception {
		DistributedLockTemplate first = newInstance();
		DistributedLockTemplate second = newInstance();
		String semaphoreKey = this.key + ":sem";
		String lockKey = this.key + ":lock";
		String readWriteKey = this.key + ":rw";
		try (LockHandle semaphore = first.acquire(semaphore(semaphoreKey, 3).build());
				LockHandle lock = first.acquire(LockDefinition.of(lockKey));
				LockHandle read = first.acquire(LockDefinition.builder(readWriteKey).type(LockType.READ).build())) {
			String[] redisKeys = { "lock:" + semaphoreKey, "lock:" + lockKey, "lock:" + readWriteKey };
			Map<String, Map<Object, Object>> before = SemaphoreTests.snapshot(redis, redisKeys);

			assertRefused(second, semaphore(semaphoreKey, 5), semaphoreKey, "3", "5");
			assertRefused(second, LockDefinition.builder(semaphoreKey), semaphoreKey, "3");
			// a read/write lock counts as one permit: its refusal names the key and both counts
			assertRefused(second, LockDefinition.builder(semaphoreKey).type(LockType.WRITE), semaphoreKey, "3", "1");
			assertRefused(second, LockDefinition.builder(semaphoreKey).type(LockType.READ), semaphoreKey, "3", "1");
			assertRefused(second, semaphore(lockKey, 3), lockKey, "3");
			assertRefused(second, semaphore(readWriteKey, 3), readWriteKey, "3", "1");

			assertThat(SemaphoreTests.snapshot(redis, redisKeys)).isEqualTo(before);
			assertThat(semaphore.isLost() || lock.isLost() || read.isLost()).isFalse();
		}
		// each holder's release found its hold: no LockLostException, nothing left
		assertThat(redis.keys("lock:" + this.key + ":*")).isEmpty();
	}

	private static void assertRefused(DistributedLockTemplate instance, LockDefinition.Builder definition,
			String key, String... counts) {
		var refused = assertThatIllegalStateException()
			.isThrownBy(() -> instance.tryAcquire(definition.acquireTimeout(Duration.ofSeconds(1)).build()))
			.withMessageContaining(key);
		for (String count : counts) {
			// a count stands alone: the key's random part has no single-digit group
			refused.withMessageMatching("(?s).*\\b" + count + "\\b.*");
		}
	}

}
