package io.github.distributedlock.reactive;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} on methods returning a {@code CompletableFuture}, in two application instances on a
 * real redis-server: the lock is held until the returned future completes, released however it completes.
 */
class AsyncMethodLockTests {

	private static final RedisServer server = SharedRedis.server();

	private static final StringRedisTemplate redis = SharedRedis.redis();

	/** Completes the futures of the locked methods, as other threads would. */
	private static final ExecutorService completer = Executors.newFixedThreadPool(4);

	private final ApplicationContextRunner runner = LockApplications
		.runner("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
				"distributed-lock.acquire-timeout=20s")
		.withUserConfiguration(JobsConfiguration.class);

	private final String id = UUID.randomUUID().toString();

	@AfterAll
	static void stopCompleter() {
		completer.shutdownNow();
	}

	private boolean held() {
		return Boolean.TRUE.equals(redis.hasKey("lock:job:" + this.id));
	}

	@Test
	void theLockIsHeldUntilTheFutureCompletesOnAnotherThreadAndKeepsTheOtherInstanceOut() {
		LockApplications.runTwo(this.runner, (first, second) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = first.getBean(Jobs.class).run(this.id, work);
			assertThat(result).isNotDone();
			assertThat(held()).isTrue();
			CompletableFuture<String> other = second.getBean(Jobs.class).tryOnce(this.id, CompletableFuture.completedFuture("other"));
			assertThat(other).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
				.havingCause()
				.isInstanceOf(LockAcquisitionException.class);
			completer.execute(() -> work.complete("done"));
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(held()).isFalse();
			assertThat(second.getBean(Jobs.class).tryOnce(this.id, CompletableFuture.completedFuture("other"))
				.get(10, TimeUnit.SECONDS)).isEqualTo("other");
		});
	}

	@Test
	void anExceptionalCompletionReleasesAndPassesThrough() {
		this.runner.run((instance) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = instance.getBean(Jobs.class).run(this.id, work);
			completer.execute(() -> work.completeExceptionally(new IllegalStateException("boom")));
			assertThatThrownBy(() -> result.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
				.cause()
				.isInstanceOf(IllegalStateException.class)
				.hasMessage("boom");
			assertThat(held()).isFalse();
		});
	}

	@Test
	void cancellingTheReturnedFutureReleasesTheLockAndCancelsTheWork() {
		this.runner.run((instance) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = instance.getBean(Jobs.class).run(this.id, work);
			assertThat(held()).isTrue();
			result.cancel(true);
			await().atMost(Duration.ofSeconds(5)).until(() -> !held());
			assertThat(work).isCancelled();
		});
	}

	@Test
	void notAcquiredIsAFailedFutureAndTheBodyDoesNotRun() {
		LockApplications.runTwo(this.runner, (first, second) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			first.getBean(Jobs.class).run(this.id, work);
			AtomicInteger ran = new AtomicInteger();
			CompletableFuture<String> result = second.getBean(Jobs.class).tryOnceCounting(this.id, ran);
			assertThat(result).isCompletedExceptionally();
			assertThatThrownBy(result::join).cause().isInstanceOf(LockAcquisitionException.class);
			assertThat(ran).hasValue(0);
			work.complete("done");
		});
	}

	@Test
	void skippedIsAFutureCompletedWithNull() {
		LockApplications.runTwo(this.runner, (first, second) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			first.getBean(Jobs.class).run(this.id, work);
			CompletionStage<String> skipped = second.getBean(Jobs.class).skipIfBusy(this.id);
			assertThat(skipped.toCompletableFuture().get(10, TimeUnit.SECONDS)).isNull();
			work.complete("done");
		});
	}

	@Test
	void aLockLostBeforeTheFutureCompletedFailsItWithLockLostException() {
		this.runner.run((instance) -> {
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = instance.getBean(Jobs.class).runWithHardLease(this.id, work);
			await().atMost(Duration.ofSeconds(5)).until(() -> !held());
			work.complete("late");
			assertThatThrownBy(() -> result.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(LockLostException.class);
		});
	}

	@Test
	void theBodyReadsItsFencingTokenAndEachCallIsAnOwnerOfItsOwn() {
		this.runner.run((instance) -> {
			Jobs jobs = instance.getBean(Jobs.class);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> firstCall = jobs.run(this.id, work);
			long firstToken = jobs.lastToken();
			// the same thread, while the first stage is pending: waits like any other owner, does not re-enter
			CompletableFuture<String> secondCall = jobs.tryOnce(this.id, CompletableFuture.completedFuture("second"));
			assertThatThrownBy(secondCall::join).cause().isInstanceOf(LockAcquisitionException.class);
			work.complete("first");
			assertThat(firstCall.get(10, TimeUnit.SECONDS)).isEqualTo("first");
			assertThat(jobs.run(this.id, CompletableFuture.completedFuture("third")).get(10, TimeUnit.SECONDS)).isEqualTo("third");
			assertThat(jobs.lastToken()).isGreaterThan(firstToken).isGreaterThan(0);
		});
	}

	@Test
	void twentyConcurrentAsyncCallsOnTwoInstancesNeverOverlap() {
		LockApplications.runTwo(this.runner, (first, second) -> {
			int calls = 40;
			AtomicInteger inside = new AtomicInteger();
			AtomicInteger maxInside = new AtomicInteger();
			ExecutorService callers = Executors.newFixedThreadPool(8);
			try {
				List<CompletableFuture<CompletableFuture<String>>> started = new ArrayList<>();
				for (int i = 0; i < calls; i++) {
					Jobs jobs = ((i % 2 == 0) ? first : second).getBean(Jobs.class);
					// the work starts inside the locked method and ends later, on another thread
					started.add(CompletableFuture.supplyAsync(() -> jobs.start(this.id, () -> CompletableFuture.supplyAsync(() -> {
						maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
						try {
							Thread.sleep(5);
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
						}
						inside.decrementAndGet();
						return "ok";
					}, completer)), callers));
				}
				for (CompletableFuture<CompletableFuture<String>> call : started) {
					assertThat(call.get(60, TimeUnit.SECONDS).get(60, TimeUnit.SECONDS)).isEqualTo("ok");
				}
			}
			finally {
				callers.shutdownNow();
			}
			assertThat(maxInside).as("holders at once").hasValue(1);
			assertThat(held()).isFalse();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class JobsConfiguration {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	static class Jobs {

		private volatile long lastToken;

		public long lastToken() {
			return this.lastToken;
		}

		@DistributedLock(name = "job", key = "#id")
		public CompletableFuture<String> run(String id, CompletableFuture<String> work) {
			this.lastToken = LockContext.current().fencingToken();
			return work;
		}

		@DistributedLock(name = "job", key = "#id")
		public CompletableFuture<String> start(String id, Supplier<CompletableFuture<String>> work) {
			return work.get();
		}

		@DistributedLock(name = "job", key = "#id", acquireTimeout = "0")
		public CompletableFuture<String> tryOnce(String id, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(name = "job", key = "#id", acquireTimeout = "0")
		public CompletableFuture<String> tryOnceCounting(String id, AtomicInteger ran) {
			ran.incrementAndGet();
			return CompletableFuture.completedFuture("ran");
		}

		@DistributedLock(name = "job", key = "#id", acquireTimeout = "0", onFailure = OnLockFailure.SKIP)
		public CompletionStage<String> skipIfBusy(String id) {
			return CompletableFuture.completedFuture("ran");
		}

		@DistributedLock(name = "job", key = "#id", lease = "300ms", autoRenew = false)
		public CompletableFuture<String> runWithHardLease(String id, CompletableFuture<String> work) {
			return work;
		}

	}

}
