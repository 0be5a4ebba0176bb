package io.github.distributedlock.reactive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reactive template on a real redis-server: acquired on subscription without a thread, released on
 * completion, error and cancellation, reentrant within one chain, never two holders.
 */
class ReactiveLockTemplateTests {

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private final List<RedisLockClient> clients = new ArrayList<>();

	private ReactiveDistributedLockTemplate first;

	private ReactiveDistributedLockTemplate second;

	private String key;

	@BeforeEach
	void setUp() {
		this.first = newInstance();
		this.second = newInstance();
		this.key = "reactive:" + UUID.randomUUID();
	}

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	private ReactiveDistributedLockTemplate newInstance() {
		RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.clients.add(client);
		return new ReactiveDistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ofSeconds(10));
	}

	private boolean held() {
		return Boolean.TRUE.equals(redis.hasKey("lock:" + this.key));
	}

	@Test
	void twoInnerLocksOfOneKeyInParallelInOneChainShareOneHoldWithARealToken() {
		// issue 18, item 2: before, both missed the chain's holds, the second got fencing token 0, and the first's
		// release freed the lock under the second
		String inner = this.key + ":inner";
		LockDefinition read = LockDefinition.builder(inner).type(LockType.READ).build();
		Sinks.One<String> firstDone = Sinks.one();
		Sinks.One<String> secondDone = Sinks.one();
		List<Long> tokens = new java.util.concurrent.CopyOnWriteArrayList<>();
		Mono<Long> token = Mono.deferContextual((context) -> Mono.just(context.get(LockHandle.class).fencingToken()));
		Mono<String> innerFirst = this.first.execute(read, token.doOnNext(tokens::add).then(firstDone.asMono()));
		Mono<String> innerSecond = this.first.execute(read, token.doOnNext(tokens::add).then(secondDone.asMono()));
		LockDefinition otherWriter = LockDefinition.builder(inner).type(LockType.WRITE).acquireTimeout(Duration.ZERO)
			.build();
		StepVerifier.create(this.first.execute(this.key, Mono.zip(innerFirst, innerSecond, (a, b) -> a + b)))
			.then(() -> await().atMost(Duration.ofSeconds(10)).until(() -> tokens.size() == 2))
			.then(() -> assertThat(tokens).allSatisfy((t) -> assertThat(t).isPositive()).containsOnly(tokens.get(0)))
			.then(() -> firstDone.tryEmitValue("a"))
			.then(() -> StepVerifier.create(this.second.execute(otherWriter, Mono.just("written")))
				.expectError(LockAcquisitionException.class)
				.verify(Duration.ofSeconds(10)))
			.then(() -> secondDone.tryEmitValue("b"))
			.expectNext("ab")
			.verifyComplete();
		assertThat(redis.hasKey("lock:" + inner)).isFalse();
	}

	@Test
	void nothingIsAcquiredBeforeSubscriptionAndTheLockIsHeldUntilTheMonoCompletes() {
		Sinks.One<String> result = Sinks.one();
		Mono<String> locked = this.first.execute(this.key, result.asMono());
		assertThat(held()).isFalse();
		StepVerifier.create(locked)
			.then(() -> await().atMost(Duration.ofSeconds(5)).until(this::held))
			.then(() -> assertThat(held()).isTrue())
			.then(() -> result.tryEmitValue("done"))
			.expectNext("done")
			.verifyComplete();
		assertThat(held()).isFalse();
	}

	@Test
	void anErrorReleasesTheLockAndPassesThrough() {
		StepVerifier.create(this.first.execute(this.key, Mono.error(new IllegalStateException("boom"))))
			.expectErrorMessage("boom")
			.verify(Duration.ofSeconds(10));
		assertThat(held()).isFalse();
	}

	@Test
	void disposingTheSubscriptionReleasesTheLock() {
		Disposable subscription = this.first.execute(this.key, Mono.never()).subscribe();
		await().atMost(Duration.ofSeconds(5)).until(this::held);
		subscription.dispose();
		await().atMost(Duration.ofSeconds(5)).until(() -> !held());
	}

	@Test
	void aFluxHoldsTheLockUntilItsLastElement() {
		Sinks.Many<Integer> elements = Sinks.many().unicast().onBackpressureBuffer();
		StepVerifier.create(this.first.executeMany(LockDefinition.of(this.key), elements.asFlux()))
			.then(() -> elements.tryEmitNext(1))
			.expectNext(1)
			.then(() -> assertThat(held()).isTrue())
			.then(() -> elements.tryEmitNext(2))
			.expectNext(2)
			.then(() -> assertThat(held()).isTrue())
			.then(elements::tryEmitComplete)
			.verifyComplete();
		assertThat(held()).isFalse();
	}

	@Test
	void aNestedExecuteOnTheSameKeyInsideTheChainReentersWithTheOuterToken() {
		Mono<long[]> tokens = this.first.execute(this.key, Mono.deferContextual((outer) -> {
			long outerToken = outer.get(LockHandle.class).fencingToken();
			return this.first.execute(this.key, Mono.deferContextual(
					(inner) -> Mono.just(new long[] { outerToken, inner.get(LockHandle.class).fencingToken() })));
		}));
		StepVerifier.create(tokens)
			.assertNext((seen) -> assertThat(seen[1]).isEqualTo(seen[0]).isPositive())
			.verifyComplete();
		assertThat(held()).isFalse();
	}

	@Test
	void anotherInstanceWaitsWithoutAThreadAndGetsTheLockWhenItIsReleased() {
		Sinks.One<String> release = Sinks.one();
		Disposable holder = this.first.execute(this.key, release.asMono()).subscribe();
		await().atMost(Duration.ofSeconds(5)).until(this::held);
		StepVerifier.create(this.second.execute(this.key, Mono.just("second")))
			.expectSubscription()
			.expectNoEvent(Duration.ofMillis(300))
			.then(() -> release.tryEmitValue("first"))
			.expectNext("second")
			.verifyComplete();
		holder.dispose();
	}

	@Test
	void notAcquiredInTimeIsALockAcquisitionExceptionAndTheActionIsNotSubscribed() {
		Disposable holder = this.first.execute(this.key, Mono.never()).subscribe();
		await().atMost(Duration.ofSeconds(5)).until(this::held);
		AtomicInteger subscribed = new AtomicInteger();
		LockDefinition briefly = LockDefinition.builder(this.key).acquireTimeout(Duration.ofMillis(300)).build();
		StepVerifier.create(this.second.execute(briefly, Mono.fromCallable(subscribed::incrementAndGet)))
			.expectError(LockAcquisitionException.class)
			.verify(Duration.ofSeconds(10));
		assertThat(subscribed).hasValue(0);
		holder.dispose();
	}

	@Test
	void aCancelledWaitWithdrawsItsPlaceInTheQueue() {
		Disposable holder = this.first.execute(this.key, Mono.never()).subscribe();
		await().atMost(Duration.ofSeconds(5)).until(this::held);
		Disposable waiter = this.second.execute(this.key, Mono.just("never")).subscribe();
		await().atMost(Duration.ofSeconds(5)).until(() -> queuedInRedis() == 1);
		waiter.dispose();
		// withdrawn at once, not left until its place expires
		await().atMost(Duration.ofSeconds(1)).until(() -> queuedInRedis() == 0);
		holder.dispose();
		await().atMost(Duration.ofSeconds(5)).until(() -> !held());
	}

	private long queuedInRedis() {
		return redis.<String, String>opsForHash().keys("lock:" + this.key).stream().filter((f) -> f.startsWith("q:")).count();
	}

	@Test
	void aLockLostWhileTheMonoRanFailsItWithLockLostException() {
		LockDefinition hard = LockDefinition.builder(this.key).lease(Duration.ofMillis(200)).autoRenew(false).build();
		StepVerifier.create(this.first.execute(hard, Mono.delay(Duration.ofMillis(500)).thenReturn("late")))
			.expectError(LockLostException.class)
			.verify(Duration.ofSeconds(10));
	}

	@Test
	void twoHundredReactiveAcquisitionsFromTwoInstancesNeverOverlapAndWaitWithoutThreads() {
		int acquisitions = 200;
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger maxInside = new AtomicInteger();
		ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
		int threadsBefore = Thread.activeCount();
		AtomicInteger maxThreads = new AtomicInteger(threadsBefore);
		Flux<Long> all = Flux.range(0, acquisitions)
			.flatMap((i) -> ((i % 2 == 0) ? this.first : this.second).execute(
					LockDefinition.builder(this.key).acquireTimeout(Duration.ofSeconds(60)).type(LockType.REENTRANT).build(),
					Mono.deferContextual((context) -> {
						maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
						maxThreads.accumulateAndGet(Thread.activeCount(), Math::max);
						long token = context.get(LockHandle.class).fencingToken();
						tokens.add(token);
						return Mono.delay(Duration.ofMillis(2)).doOnNext((tick) -> inside.decrementAndGet()).thenReturn(token);
					})), acquisitions);
		StepVerifier.create(all).expectNextCount(acquisitions).verifyComplete();
		assertThat(maxInside).as("holders at once").hasValue(1);
		// tokens strictly increase in the order the holders held the lock
		List<Long> inOrder = new ArrayList<>(tokens);
		assertThat(inOrder).hasSize(acquisitions).isSorted().doesNotHaveDuplicates();
		assertThat(maxThreads.get() - threadsBefore).as("threads started while 200 waited").isLessThan(50);
		assertThat(held()).isFalse();
	}

}
