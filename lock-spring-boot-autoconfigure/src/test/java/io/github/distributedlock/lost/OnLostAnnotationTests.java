package io.github.distributedlock.lost;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockLoss;
import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.autoconfigure.ReactiveDistributedLockAutoConfiguration;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock(onLost = INTERRUPT)} in an application on a real redis-server, for a blocking method,
 * a {@code CompletableFuture} method and a {@code Mono} method; and {@code distributed-lock.on-lost} as the
 * default of methods that set none. The loss is made by deleting the lock's key under the running method.
 */
class OnLostAnnotationTests {

	private static final RedisServer server = SharedRedis.server();

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				DistributedLockAutoConfiguration.class, ReactiveDistributedLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port())
		.withUserConfiguration(JobsConfiguration.class);

	private final String id = UUID.randomUUID().toString();

	@Test
	void aBlockingMethodIsInterrupted() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThatThrownBy(() -> jobs.blocking(this.id)).isInstanceOf(LockLostException.class);
			assertThat(jobs.wasInterrupted()).isTrue();
		});
	}

	@Test
	void withoutOnLostTheBlockingMethodRunsOnUnlessThePropertySaysInterrupt() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThatThrownBy(() -> jobs.blockingByDefault(this.id, 1500)).isInstanceOf(LockLostException.class);
			assertThat(jobs.wasInterrupted()).isFalse();
		});
		this.runner.withPropertyValues("distributed-lock.on-lost=interrupt").run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThatThrownBy(() -> jobs.blockingByDefault(this.id, 30_000)).isInstanceOf(LockLostException.class);
			assertThat(jobs.wasInterrupted()).isTrue();
		});
	}

	@Test
	void aCompletableFutureMethodFailsAndItsStageIsCancelled() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = jobs.async(this.id, work);
			redis.delete("lock:job:" + this.id);
			assertThatThrownBy(() -> result.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(LockLostException.class);
			await().atMost(Duration.ofSeconds(5)).until(work::isCancelled);
		});
	}

	@Test
	void aMonoMethodSignalsTheLossAndItsUpstreamIsCancelled() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			AtomicBoolean cancelled = new AtomicBoolean();
			Mono<String> work = Mono.<String>never()
				.doOnSubscribe((subscription) -> redis.delete("lock:job:" + this.id))
				.doOnCancel(() -> cancelled.set(true));
			assertThatThrownBy(() -> jobs.reactive(this.id, work).block(Duration.ofSeconds(10)))
				.isInstanceOf(LockLostException.class);
			assertThat(cancelled).isTrue();
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

		private volatile boolean interrupted;

		/** Read through the proxy: the target's field, not the proxy's own. */
		public boolean wasInterrupted() {
			return this.interrupted;
		}

		@DistributedLock(name = "job", key = "#id", lease = "300ms", onLost = OnLockLoss.INTERRUPT)
		public void blocking(String id) {
			sleepAfterLosing(id, 30_000);
		}

		@DistributedLock(name = "job", key = "#id", lease = "300ms")
		public void blockingByDefault(String id, long millis) {
			sleepAfterLosing(id, millis);
		}

		@DistributedLock(name = "job", key = "#id", lease = "300ms", onLost = OnLockLoss.INTERRUPT)
		public CompletableFuture<String> async(String id, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(name = "job", key = "#id", lease = "300ms", onLost = OnLockLoss.INTERRUPT)
		public Mono<String> reactive(String id, Mono<String> work) {
			return work;
		}

		private void sleepAfterLosing(String id, long millis) {
			redis.delete("lock:job:" + id);
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				this.interrupted = true;
			}
		}

	}

}
