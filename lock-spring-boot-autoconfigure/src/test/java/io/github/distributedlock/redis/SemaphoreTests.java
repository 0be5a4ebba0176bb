package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.autoconfigure.ReactiveDistributedLockAutoConfiguration;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.Occupancy;
import io.github.distributedlock.test.OnThread;
import io.github.distributedlock.test.Owners;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Semaphores ({@code permits > 1}) on a real redis-server shared by the cases: at most N owners across
 * instances, all N used, fencing tokens that strictly increase across permits, a killed holder's permit freed
 * by its lease, re-entry without a second permit, the minimum hold, and async and reactive methods (issue 20).
 * Waiting order and mixed use of a key are in {@link SemaphoreWaitingTests}.
 */
@SuppressWarnings("try") // a resource that only holds a permit for the block is not referenced in it
class SemaphoreTests {

	private static final RedisServer server = SharedRedis.server();

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private final List<RedisLockClient> clients = new ArrayList<>();

	private final String key = "sem:" + UUID.randomUUID();

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	private DistributedLockTemplate newInstance() {
		RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.clients.add(client);
		return new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ofSeconds(10));
	}

	private LockDefinition.Builder semaphore(int permits) {
		return LockDefinition.builder(this.key).permits(permits);
	}

	private String redisKey() {
		return "lock:" + this.key;
	}

	private ApplicationContextRunner partnerApplication() {
		return LockApplications
			.runner("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"distributed-lock.acquire-timeout=60s")
			.withConfiguration(AutoConfigurations.of(ReactiveDistributedLockAutoConfiguration.class))
			.withUserConfiguration(PartnerApi.PartnerConfiguration.class);
	}

	/**
	 * Two instances x 8 threads x 15 calls of {@code @DistributedLock(permits = 3)} on one key: never more than
	 * three inside, three at some point, and every token greater than each one recorded before its call began.
	 */
	@Test
	void twoInstancesNeverHaveMoreThanThreeInsideUseAllThreeAndGetIncreasingTokens() {
		Occupancy occupancy = new Occupancy();
		LockApplications.runTwo(partnerApplication(), (first, second) -> {
			List<PartnerApi> instances = List.of(first.getBean(PartnerApi.class), second.getBean(PartnerApi.class));
			Concurrently.run(16, 120, (thread) -> {
				PartnerApi api = instances.get(thread % 2);
				for (int i = 0; i < 15; i++) {
					api.call(this.key, occupancy, occupancy.maxToken());
				}
			});
		});
		assertThat(occupancy.maxInside()).as("owners inside at once, at most").isEqualTo(3);
		assertThat(occupancy.tokens()).hasSize(240).doesNotHaveDuplicates();
		assertThat(occupancy.tokens().get(0)).isPositive();
		assertThat(occupancy.staleTokens()).as("tokens not greater than one handed out before").isZero();
		assertThat(redis.hasKey("lock:partner:" + this.key)).isFalse();
	}

	@Test
	void asyncAndReactiveMethodsHaveAtMostThreeInsideAndUseAllThree() {
		partnerApplication().run((instance) -> {
			PartnerApi api = instance.getBean(PartnerApi.class);
			Occupancy async = new Occupancy();
			// each call is an owner of its own, whichever thread made it
			List<CompletableFuture<Long>> calls = new CopyOnWriteArrayList<>();
			Concurrently.run(6, 60, (thread) -> {
				for (int i = 0; i < 4; i++) {
					calls.add(api.callAsync(this.key, async));
				}
			});
			List<Long> tokens = calls.stream().map(CompletableFuture::join).toList();
			assertThat(tokens).hasSize(24).doesNotHaveDuplicates();
			assertThat(async.maxInside()).isEqualTo(3);

			Occupancy reactive = new Occupancy();
			List<String> results = Flux.range(0, 24)
				.flatMap((i) -> api.callReactive(this.key, reactive), 24)
				.collectList()
				.block(Duration.ofSeconds(60));
			assertThat(results).hasSize(24);
			assertThat(reactive.maxInside()).isEqualTo(3);
		});
		assertThat(redis.hasKey("lock:partner:" + this.key)).isFalse();
	}

	/**
	 * A holder JVM killed with SIGKILL while it holds one of two permits: the permit is free when its lease
	 * ends, so two other owners hold at once; the permit of the owner that held beside it is untouched.
	 */
	@Test
	void aKilledHoldersPermitIsFreeWhenItsLeaseEndsAndTheOtherHoldersPermitIsUntouched() throws Exception {
		// short, but renewed every second: a loaded machine (a JVM starting beside the test) must not lose it
		long leaseMillis = 3000;
		LockDefinition tryOnce = semaphore(2).lease(Duration.ofMillis(leaseMillis)).acquireTimeout(Duration.ZERO).build();
		DistributedLockTemplate first = newInstance();
		DistributedLockTemplate second = newInstance();
		try (HolderProcess holder = new HolderProcess(server.port(), this.key, leaseMillis, "REENTRANT", 2);
				LockHandle mine = first.acquire(tryOnce)) {
			String mineField = "h:" + Owners.current(this.clients.get(0), this.key);
			String deadField = "h:" + holder.owner();
			// both are renewed past their lease while they run
			await().during(Duration.ofMillis(leaseMillis + 500)).atMost(Duration.ofSeconds(10))
				.until(() -> holds(deadField) && holds(mineField));
			assertThat(second.tryAcquire(tryOnce)).as("a third owner while both permits are held").isEmpty();

			holder.kill();
			long killedAt = System.nanoTime();
			try (LockHandle next = second.acquire(semaphore(2).acquireTimeout(Duration.ofSeconds(8)).build())) {
				Duration waited = Duration.ofNanos(System.nanoTime() - killedAt);
				System.out.println("The killed holder's permit was taken " + waited.toMillis() + " ms after the kill");
				assertThat(waited).isLessThan(Duration.ofMillis(leaseMillis + 1000));
				assertThat(holds(deadField)).isFalse();
				// the permit beside it was never touched, and its renewals go on
				await().during(Duration.ofMillis(leaseMillis + 500)).atMost(Duration.ofSeconds(10))
					.until(() -> holds(mineField) && !mine.isLost());
				mine.checkHeld();
				assertThat(next.fencingToken()).isGreaterThan(mine.fencingToken());
			}
		}
		// both closed without LockLostException, and nothing is left
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	/** Whether a holder field is in the hash with a deadline ({@code <deadline ms>:<holds>}) still to come. */
	private boolean holds(String field) {
		Object value = redis.opsForHash().get(redisKey(), field);
		return value != null
				&& Long.parseLong(value.toString().substring(0, value.toString().indexOf(':'))) > SharedRedis.timeMillis();
	}

	@Test
	void aReentryTakesNoSecondPermit() throws Exception {
		DistributedLockTemplate first = newInstance();
		DistributedLockTemplate second = newInstance();
		DistributedLockTemplate third = newInstance();
		LockDefinition tryOnce = semaphore(2).acquireTimeout(Duration.ZERO).build();
		try (LockHandle outer = first.acquire(tryOnce); LockHandle inner = first.acquire(tryOnce)) {
			assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			Optional<LockHandle> other = second.tryAcquire(tryOnce);
			assertThat(other).as("the second permit, for another owner").isPresent();
			try (LockHandle otherHandle = other.get()) {
				assertThat(third.tryAcquire(semaphore(2).acquireTimeout(Duration.ofMillis(300)).build()))
					.as("a third owner").isEmpty();
			}
			// the re-entry's release keeps the outer hold
			inner.close();
			assertThat(this.clients.get(0).heldLocks()).anyMatch((held) -> held.key().equals(this.key));
			try (LockHandle otherAgain = second.acquire(tryOnce)) {
				assertThat(third.tryAcquire(tryOnce)).isEmpty();
			}
		}
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void aPermitReleasedBeforeItsMinimumHoldStaysTakenUntilTheHoldEnds() throws Exception {
		DistributedLockTemplate first = newInstance();
		DistributedLockTemplate second = newInstance();
		DistributedLockTemplate third = newInstance();
		Duration holdAtLeast = Duration.ofMillis(1200);
		long start = System.nanoTime();
		first.execute(semaphore(2).holdAtLeast(holdAtLeast).build(), () -> null);
		LockDefinition tryOnce = semaphore(2).acquireTimeout(Duration.ZERO).build();
		try (LockHandle other = second.acquire(tryOnce)) {
			assertThat(third.tryAcquire(tryOnce)).as("the released permit while its minimum hold lasts").isEmpty();
			try (LockHandle late = third.acquire(semaphore(2).acquireTimeout(Duration.ofSeconds(5)).build())) {
				// the server's clock and this JVM's may differ by a little
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(holdAtLeast.minusMillis(100));
			}
		}
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	/** What Redis holds for some keys, field by field: a refused call must leave it as it was. */
	static Map<String, Map<Object, Object>> snapshot(StringRedisTemplate redis, String... redisKeys) {
		Map<String, Map<Object, Object>> state = new java.util.TreeMap<>();
		for (String redisKey : redisKeys) {
			state.put(redisKey, redis.opsForHash().entries(redisKey));
		}
		return state;
	}

	/** Holds a permit on a thread of its own (a thread's second acquisition would be a re-entry). */
	static LockHandle holdOnNewThread(DistributedLockTemplate template, LockDefinition definition) throws Exception {
		try (OnThread<LockHandle> holder = OnThread.start("permit-holder", () -> template.acquire(definition))) {
			return holder.get(20);
		}
	}

}
