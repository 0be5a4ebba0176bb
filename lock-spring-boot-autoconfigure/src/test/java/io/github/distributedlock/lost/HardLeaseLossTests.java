package io.github.distributedlock.lost;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockLoss;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.local.LocalLockClient;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A hard lease ({@code autoRenew = false}) that ends while its hold is open is told lost at that moment, on a
 * real redis-server and on the local store: {@code whenLost()} completes, {@code onLost = INTERRUPT} stops the
 * work, the observer hears it once; a hold released in time never is; a late re-entry moves the end.
 */
class HardLeaseLossTests {

	/** The stores under test, each making its client. */
	enum Store {

		REDIS(() -> new RedisLockClient(SharedRedis.connectionFactory(), "lock:")),

		LOCAL(LocalLockClient::new);

		private final Supplier<LockClient> clients;

		Store(Supplier<LockClient> clients) {
			this.clients = clients;
		}

	}

	private final List<LockClient> clients = new ArrayList<>();

	private final List<String> losses = new CopyOnWriteArrayList<>();

	private final String key = "hard-lease:" + UUID.randomUUID();

	@AfterEach
	void closeClients() {
		this.clients.forEach(LockClient::close);
	}

	private DistributedLockTemplate template(Store store, OnLockLoss onLost) {
		LockClient client = store.clients.get();
		LockObserver recorder = new LockObserver() {
			@Override
			public void lost(String key, LockType type, String reason) {
				HardLeaseLossTests.this.losses.add(key + ": " + reason);
			}
		};
		if (client instanceof RedisLockClient redisClient) {
			redisClient.setLockObserver(recorder);
		}
		else {
			((LocalLockClient) client).setLockObserver(recorder);
		}
		this.clients.add(client);
		return new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ofSeconds(5), onLost);
	}

	private LockDefinition hardLease(long millis) {
		return LockDefinition.builder(this.key).lease(Duration.ofMillis(millis)).autoRenew(false).build();
	}

	@ParameterizedTest
	@EnumSource(Store.class)
	void anOpenHoldIsToldLostWhenItsHardLeaseEnds(Store store) throws Exception {
		DistributedLockTemplate template = template(store, OnLockLoss.NONE);
		long start = System.nanoTime();
		LockHandle handle = template.acquire(hardLease(500));
		LockLostException loss = handle.whenLost().toCompletableFuture().get(10, TimeUnit.SECONDS);
		Duration toldAfter = Duration.ofNanos(System.nanoTime() - start);
		System.out.println(store + ": the loss of a 500 ms hard lease was told " + toldAfter.toMillis()
				+ " ms after the acquisition began");
		// not before the lease ended (counted from when the acquisition was sent), and not at the release
		assertThat(toldAfter).isGreaterThanOrEqualTo(Duration.ofMillis(500));
		assertThat(loss.getMessage()).contains("its lease of 500 ms ran out");
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.losses.isEmpty());
		assertThatThrownBy(handle::close).isInstanceOf(LockLostException.class);
		assertThat(this.losses).singleElement().asString().startsWith(this.key + ": its lease of 500 ms ran out");
	}

	@ParameterizedTest
	@EnumSource(Store.class)
	void onLostInterruptStopsWorkThatOutlivesItsHardLease(Store store) {
		DistributedLockTemplate template = template(store, OnLockLoss.INTERRUPT);
		AtomicBoolean interrupted = new AtomicBoolean();
		CountDownLatch never = new CountDownLatch(1);
		long start = System.nanoTime();
		assertThatThrownBy(() -> template.execute(hardLease(500), () -> {
			try {
				// work that would run far past its lease: only the interrupt ends it
				never.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				interrupted.set(true);
			}
		})).isInstanceOf(LockLostException.class);
		assertThat(interrupted).isTrue();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
	}

	@ParameterizedTest
	@EnumSource(Store.class)
	void aHoldReleasedBeforeItsHardLeaseEndsIsNeverToldLost(Store store) {
		DistributedLockTemplate template = template(store, OnLockLoss.NONE);
		// a first acquisition on a cold client took up to 810 ms of a loaded machine: warm it up on another key,
		// so that the hold under test is surely released within its lease
		template.acquire(LockDefinition.builder(this.key + ":warm-up").build()).close();
		LockHandle handle = template.acquire(hardLease(2000));
		CompletableFuture<LockLostException> lost = handle.whenLost().toCompletableFuture();
		handle.close();
		// well past the end of the lease
		await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5)).until(() -> !lost.isDone());
		assertThat(this.losses).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(Store.class)
	void aLateReentryMovesTheEndOfTheHardLease(Store store) throws Exception {
		DistributedLockTemplate template = template(store, OnLockLoss.NONE);
		long start = System.nanoTime();
		LockHandle outer = template.acquire(hardLease(2400));
		// past two thirds of the lease: the re-entry extends it (in Redis too) to a lease from now
		await().pollDelay(Duration.ofMillis(1800)).atMost(Duration.ofSeconds(3)).until(() -> true);
		LockHandle inner = template.acquire(hardLease(2400));
		CompletableFuture<LockLostException> lost = outer.whenLost().toCompletableFuture();
		// the first lease's end passes without a loss
		await().pollDelay(Duration.ofMillis(2400 + 300).minusNanos(System.nanoTime() - start))
			.atMost(Duration.ofSeconds(5))
			.until(() -> true);
		assertThat(lost).isNotDone();
		assertThat(lost.get(10, TimeUnit.SECONDS).getMessage()).contains("ran out");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1800 + 2400));
		assertThatThrownBy(inner::close).isInstanceOf(LockLostException.class);
	}

}
