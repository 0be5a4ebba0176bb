package io.github.distributedlock.lost;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.annotation.OnLockLoss;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a holder learns of a loss, and when, on a real redis-server: {@code whenLost()}, the confirmed lease and
 * {@code checkHeld(margin)}, and {@code onLost = INTERRUPT} for blocking, asynchronous and reactive work. The
 * loss is made by deleting the lock's key in Redis, which the watchdog finds at its next renewal.
 */
class LockLossTests {

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private final List<RedisLockClient> clients = new ArrayList<>();

	private final String key = "lost:" + UUID.randomUUID();

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	private RedisLockClient newClient() {
		RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.clients.add(client);
		return client;
	}

	private DistributedLockTemplate template(OnLockLoss onLost) {
		return new DistributedLockTemplate(newClient(), Duration.ofSeconds(30), Duration.ofSeconds(5), onLost);
	}

	private LockDefinition shortLease() {
		return LockDefinition.builder(this.key).lease(Duration.ofMillis(300)).build();
	}

	@Test
	void whenLostCompletesWithTheLossOnceTheWatchdogFindsTheLockGone() throws Exception {
		LockHandle handle = template(OnLockLoss.NONE).acquire(shortLease());
		CompletableFuture<LockLostException> lost = handle.whenLost().toCompletableFuture();
		assertThat(lost).isNotDone();
		redis.delete("lock:" + this.key);
		LockLostException loss = lost.get(10, TimeUnit.SECONDS);
		assertThat(loss.getKey()).isEqualTo(this.key);
		assertThat(loss).hasMessageContaining("found it gone");
		assertThat(handle.isLost()).isTrue();
		// asked after the loss: completed at once
		assertThat(handle.whenLost().toCompletableFuture()).isCompletedWithValue(loss);
		assertThatThrownBy(handle::close).isInstanceOf(LockLostException.class);
	}

	@Test
	void whenLostNeverCompletesAfterANormalRelease() {
		LockHandle handle = template(OnLockLoss.NONE).acquire(shortLease());
		CompletableFuture<LockLostException> lost = handle.whenLost().toCompletableFuture();
		handle.close();
		// several renewal periods: the watchdog would have found a deleted key by now
		await().during(Duration.ofMillis(1000)).atMost(Duration.ofSeconds(3)).until(() -> !lost.isDone());
		assertThat(handle.isLost()).isFalse();
	}

	@Test
	void whenLostCannotBeCompletedByItsReceiver() {
		LockHandle handle = template(OnLockLoss.NONE).acquire(shortLease());
		// a copy: completing it tells nobody else
		handle.whenLost().toCompletableFuture().complete(null);
		assertThat(handle.whenLost().toCompletableFuture()).isNotDone();
		assertThat(handle.isLost()).isFalse();
		handle.close();
	}

	@Test
	void checkHeldWithAMarginThrowsWhenTheConfirmedLeaseEndsWithinIt() {
		DistributedLockTemplate template = template(OnLockLoss.NONE);
		Instant before = Instant.now();
		LockHandle handle = template
			.acquire(LockDefinition.builder(this.key).lease(Duration.ofMillis(3000)).autoRenew(false).build());
		Instant after = Instant.now();
		// counted from when the acquisition was sent: between the call and its return, plus the lease
		assertThat(handle.leaseConfirmedUntil()).isBetween(before.plusMillis(2950), after.plusMillis(3050));
		handle.checkHeld(Duration.ofMillis(200));
		assertThatThrownBy(() -> handle.checkHeld(Duration.ofSeconds(4))).isInstanceOf(LockLostException.class)
			.hasMessageContaining("within the margin of 4000 ms");
		assertThat(handle.isLost()).isFalse();
		// a hard lease is not renewed: its end comes nearer until the margin reaches it
		await().atMost(Duration.ofSeconds(5))
			.until(() -> Duration.between(Instant.now(), handle.leaseConfirmedUntil()).toMillis() < 400);
		assertThatThrownBy(() -> handle.checkHeld(Duration.ofMillis(500))).isInstanceOf(LockLostException.class);
		assertThatThrownBy(() -> handle.checkHeld(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
		handle.close();
	}

	@Test
	void anAutoRenewedLeaseStaysConfirmedFarAhead() {
		LockHandle handle = template(OnLockLoss.NONE)
			.acquire(LockDefinition.builder(this.key).lease(Duration.ofMillis(1500)).build());
		// renewed every 500 ms: the confirmed lease stays about a lease ahead, never below 300 ms (a 300 ms lease
		// with a 50 ms margin left too little room for a late renewal on a loaded machine)
		await().during(Duration.ofMillis(2000))
			.atMost(Duration.ofSeconds(6))
			.untilAsserted(() -> handle.checkHeld(Duration.ofMillis(300)));
		handle.close();
	}

	@Test
	void interruptStopsABlockingHolderOnceAndClearsTheFlagAfterwards() throws Exception {
		DistributedLockTemplate template = template(OnLockLoss.INTERRUPT);
		CountDownLatch running = new CountDownLatch(1);
		AtomicBoolean interrupted = new AtomicBoolean();
		AtomicBoolean flagAfterwards = new AtomicBoolean(true);
		CompletableFuture<Object> call = CompletableFuture.supplyAsync(() -> {
			try {
				return template.execute(shortLease(), () -> {
					running.countDown();
					try {
						Thread.sleep(30_000);
					}
					catch (InterruptedException ex) {
						interrupted.set(true);
					}
					return "done";
				});
			}
			finally {
				flagAfterwards.set(Thread.currentThread().isInterrupted());
			}
		});
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		redis.delete("lock:" + this.key);
		assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(LockLostException.class);
		assertThat(interrupted).isTrue();
		assertThat(flagAfterwards).isFalse();
	}

	@Test
	void withNoneTheHolderRunsOnAndLearnsOfTheLossAtRelease() throws Exception {
		DistributedLockTemplate template = template(OnLockLoss.NONE);
		AtomicBoolean interrupted = new AtomicBoolean();
		AtomicBoolean sawLoss = new AtomicBoolean();
		assertThatThrownBy(() -> template.execute(shortLease(), () -> {
			LockHandle handle = LockContext.current();
			redis.delete("lock:" + this.key);
			try {
				await().atMost(Duration.ofSeconds(10)).until(handle::isLost);
				sawLoss.set(true);
				Thread.sleep(300);
			}
			catch (InterruptedException ex) {
				interrupted.set(true);
			}
			return "done";
		})).isInstanceOf(LockLostException.class);
		assertThat(sawLoss).isTrue();
		assertThat(interrupted).isFalse();
	}

	@Test
	void aDefinitionsOnLostWinsOverTheTemplatesDefault() throws Exception {
		DistributedLockTemplate template = template(OnLockLoss.NONE);
		AtomicBoolean interrupted = new AtomicBoolean();
		assertThatThrownBy(() -> template.execute(
				LockDefinition.builder(this.key).lease(Duration.ofMillis(300)).onLost(OnLockLoss.INTERRUPT).build(),
				() -> {
					redis.delete("lock:" + this.key);
					try {
						Thread.sleep(30_000);
					}
					catch (InterruptedException ex) {
						interrupted.set(true);
					}
					return null;
				}))
			.isInstanceOf(LockLostException.class);
		assertThat(interrupted).isTrue();
	}

	@Test
	void aThreadThatMovedOnIsNotInterrupted() throws Exception {
		DistributedLockTemplate template = template(OnLockLoss.INTERRUPT);
		// the hold outlives the locked call: a handle acquired by the same thread keeps the lock held
		LockHandle outer = template.acquire(shortLease());
		template.execute(shortLease(), () -> "quick");
		redis.delete("lock:" + this.key);
		await().atMost(Duration.ofSeconds(10)).until(outer::isLost);
		// the loss came after the locked call ended: this thread, doing other work now, is left alone
		Thread.sleep(200);
		assertThat(Thread.interrupted()).isFalse();
		assertThatThrownBy(outer::close).isInstanceOf(LockLostException.class);
	}

	@Test
	void reentrantCallsOnALongHeldLockEachInterruptOnlyWhileTheyRun() throws Exception {
		DistributedLockTemplate template = template(OnLockLoss.INTERRUPT);
		LockHandle outer = template.acquire(shortLease());
		for (int i = 0; i < 1000; i++) {
			template.execute(shortLease(), () -> "re-entered");
		}
		AtomicBoolean interrupted = new AtomicBoolean();
		assertThatThrownBy(() -> template.execute(shortLease(), () -> {
			redis.delete("lock:" + this.key);
			try {
				Thread.sleep(30_000);
			}
			catch (InterruptedException ex) {
				interrupted.set(true);
			}
			return null;
		})).isInstanceOf(LockLostException.class);
		assertThat(interrupted).isTrue();
		assertThat(Thread.interrupted()).isFalse();
		assertThatThrownBy(outer::close).isInstanceOf(LockLostException.class);
	}

	@Test
	void interruptFailsTheFutureOfAnAsynchronousCallAndCancelsItsStage() throws Exception {
		DistributedLockTemplate template = template(OnLockLoss.INTERRUPT);
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> call = template.executeAsync(shortLease(), () -> work);
		redis.delete("lock:" + this.key);
		assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(LockLostException.class);
		await().atMost(Duration.ofSeconds(5)).until(work::isCancelled);
		// released: the next holder gets it at once
		assertThat(template.tryAcquire(LockDefinition.builder(this.key).acquireTimeout(Duration.ZERO).build()))
			.hasValueSatisfying(LockHandle::close);
	}

	@Test
	void interruptSignalsTheLossToAMonoAndCancelsItsUpstream() {
		ReactiveDistributedLockTemplate reactive = new ReactiveDistributedLockTemplate(newClient(),
				Duration.ofSeconds(30), Duration.ofSeconds(5), OnLockLoss.INTERRUPT);
		AtomicBoolean cancelled = new AtomicBoolean();
		AtomicLong subscribed = new AtomicLong();
		Mono<String> work = Mono.<String>never()
			.doOnSubscribe((subscription) -> {
				subscribed.incrementAndGet();
				redis.delete("lock:" + this.key);
			})
			.doOnCancel(() -> cancelled.set(true));
		assertThatThrownBy(() -> reactive.execute(shortLease(), work).block(Duration.ofSeconds(10)))
			.isInstanceOf(LockLostException.class);
		assertThat(subscribed).hasValue(1);
		assertThat(cancelled).isTrue();
	}

	@Test
	void interruptEndsAFluxWithTheLossAfterTheElementsBeforeIt() {
		ReactiveDistributedLockTemplate reactive = new ReactiveDistributedLockTemplate(newClient(),
				Duration.ofSeconds(30), Duration.ofSeconds(5), OnLockLoss.INTERRUPT);
		AtomicBoolean cancelled = new AtomicBoolean();
		List<Long> received = new CopyOnWriteArrayList<>();
		Flux<Long> ticks = Flux.interval(Duration.ofMillis(20))
			.doOnNext((tick) -> {
				if (tick == 3) {
					redis.delete("lock:" + this.key);
				}
			})
			.doOnCancel(() -> cancelled.set(true));
		assertThatThrownBy(() -> reactive.executeMany(shortLease(), ticks)
			.doOnNext(received::add)
			.blockLast(Duration.ofSeconds(10))).isInstanceOf(LockLostException.class);
		assertThat(received).startsWith(0L, 1L, 2L, 3L);
		assertThat(cancelled).isTrue();
	}

	@Test
	void withNoneAMonoRunsOnAfterTheLoss() {
		ReactiveDistributedLockTemplate reactive = new ReactiveDistributedLockTemplate(newClient(),
				Duration.ofSeconds(30), Duration.ofSeconds(5), OnLockLoss.NONE);
		AtomicBoolean cancelled = new AtomicBoolean();
		Mono<String> work = Mono.just("late")
			.delaySubscription(Mono.fromRunnable(() -> redis.delete("lock:" + this.key)))
			.delayElement(Duration.ofMillis(800))
			.doOnCancel(() -> cancelled.set(true));
		// it completes; the release then reports the loss
		assertThatThrownBy(() -> reactive.execute(shortLease(), work).block(Duration.ofSeconds(10)))
			.isInstanceOf(LockLostException.class);
		assertThat(cancelled).isFalse();
	}

}
