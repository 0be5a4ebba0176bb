package io.github.distributedlock.reactive;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.aop.InvalidLockAnnotationException;
import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.autoconfigure.ReactiveDistributedLockAutoConfiguration;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} on methods returning {@code Mono} and {@code Flux}, in applications on a real
 * redis-server: the method runs at the subscription, under the lock, which it keeps until its result ends.
 */
class ReactiveMethodLockTests {

	private static final RedisServer server = SharedRedis.server();

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				DistributedLockAutoConfiguration.class, ReactiveDistributedLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
				"distributed-lock.acquire-timeout=10s")
		.withUserConfiguration(ReportsConfiguration.class);

	private final String id = UUID.randomUUID().toString();

	private boolean held() {
		return Boolean.TRUE.equals(redis.hasKey("lock:report:" + this.id));
	}

	@Test
	void theMethodRunsAtSubscriptionUnderTheLockWhichItKeepsUntilTheMonoEnds() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(ReactiveDistributedLockTemplate.class);
			Reports reports = context.getBean(Reports.class);
			Sinks.One<String> result = Sinks.one();
			Mono<String> report = reports.render(this.id, result.asMono());
			assertThat(reports.calls()).as("calls before subscription").isZero();
			assertThat(held()).isFalse();
			StepVerifier.create(report)
				.then(() -> await().atMost(Duration.ofSeconds(5)).until(this::held))
				.then(() -> assertThat(reports.calls()).isEqualTo(1))
				.then(() -> assertThat(reports.lockedWhenCalled()).isTrue())
				.then(() -> result.tryEmitValue("pdf"))
				.expectNext("pdf")
				.verifyComplete();
			assertThat(held()).isFalse();
		});
	}

	@Test
	void aFluxMethodKeepsTheLockUntilItsLastElementAndAnErrorReleasesIt() {
		this.runner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			StepVerifier.create(reports.pages(this.id, 3))
				.expectNext(1, 2, 3)
				.verifyComplete();
			assertThat(held()).isFalse();
			StepVerifier.create(reports.pages(this.id, -1)).expectErrorMessage("no pages").verify(Duration.ofSeconds(10));
			assertThat(held()).isFalse();
		});
	}

	@Test
	void busyIsALockAcquisitionExceptionOrEmptyWithSkipAndTheMethodDoesNotRun() {
		this.runner.run((first) -> this.runner.run((second) -> {
			Disposable holder = first.getBean(Reports.class).render(this.id, Mono.never()).subscribe();
			await().atMost(Duration.ofSeconds(5)).until(this::held);
			Reports other = second.getBean(Reports.class);
			StepVerifier.create(other.tryRender(this.id)).expectError(LockAcquisitionException.class).verify(Duration.ofSeconds(10));
			StepVerifier.create(other.renderIfFree(this.id)).verifyComplete();
			assertThat(other.calls()).isZero();
			holder.dispose();
			await().atMost(Duration.ofSeconds(5)).until(() -> !held());
		}));
	}

	@Test
	void theMethodReadsItsLockHandleFromTheReactorContext() {
		this.runner.run((context) -> StepVerifier.create(context.getBean(Reports.class).token(this.id))
			.assertNext((token) -> assertThat(token).isPositive())
			.verifyComplete());
	}

	@Test
	void aMonoMethodMakingTheApplicationsFirstReactiveRedisCallDoesNotDeadlock() {
		// the reactive template connects on first use, blocking its thread: on Lettuce's only I/O thread (which
		// completes the lock's acquisition), that connect would wait for itself
		this.runner.withConfiguration(AutoConfigurations.of(DataRedisReactiveAutoConfiguration.class))
			.withBean(ClientResources.class, () -> ClientResources.builder().ioThreadPoolSize(1).build())
			.run((context) -> StepVerifier.create(context.getBean(Reports.class)
				.count(this.id, context.getBean(ReactiveStringRedisTemplate.class)))
				.expectNext(1L)
				.expectComplete()
				.verify(Duration.ofSeconds(20)));
		redis.delete("report-count:" + this.id);
	}

	@Test
	void withJedisAMonoMethodFailsTheStartupWithAReportSayingWhy() {
		this.runner.withPropertyValues("spring.data.redis.client-type=jedis").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(InvalidLockAnnotationException.class)
				.hasMessageContaining("@DistributedLock on Reports.")
				.hasMessageContaining("ReactiveDistributedLockTemplate")
				.hasMessageContaining("Jedis");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ReportsConfiguration {

		@Bean
		Reports reports() {
			return new Reports();
		}

	}

	static class Reports {

		private final AtomicInteger calls = new AtomicInteger();

		private volatile boolean lockedWhenCalled;

		int calls() {
			return this.calls.get();
		}

		boolean lockedWhenCalled() {
			return this.lockedWhenCalled;
		}

		@DistributedLock(name = "report", key = "#id")
		public Mono<String> render(String id, Mono<String> result) {
			this.calls.incrementAndGet();
			this.lockedWhenCalled = Boolean.TRUE.equals(redis.hasKey("lock:report:" + id));
			return result;
		}

		@DistributedLock(name = "report", key = "#id", acquireTimeout = "200ms")
		public Mono<String> tryRender(String id) {
			this.calls.incrementAndGet();
			return Mono.just("rendered");
		}

		@DistributedLock(name = "report", key = "#id", acquireTimeout = "0", onFailure = OnLockFailure.SKIP)
		public Mono<String> renderIfFree(String id) {
			this.calls.incrementAndGet();
			return Mono.just("rendered");
		}

		@DistributedLock(name = "report", key = "#id")
		public Flux<Integer> pages(String id, int count) {
			return (count < 0) ? Flux.error(new IllegalStateException("no pages")) : Flux.range(1, count);
		}

		@DistributedLock(name = "report", key = "#id")
		public Mono<Long> count(String id, ReactiveStringRedisTemplate reactiveRedis) {
			return reactiveRedis.opsForValue().increment("report-count:" + id);
		}

		@DistributedLock(name = "report", key = "#id")
		public Mono<Long> token(String id) {
			return Mono.deferContextual((context) -> Mono.just(context.get(LockHandle.class).fencingToken()));
		}

	}

}
