package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The application context closes while a lock is held by work still running (a {@code @Scheduled} job, a
 * plain thread): the lock stays held and renewed, so no other instance gets it, until the work releases it,
 * or until the shutdown timeout ends, when it is released with a warning and the late release is a
 * {@link LockLostException} (issue 13, item 1).
 */
@ExtendWith(OutputCaptureExtension.class)
class GracefulShutdownTests {

	/** The locks' lease: renewed every 200 ms, so only renewal keeps them through a shutdown of seconds. */
	private static final String LEASE = "600ms";

	static CountDownLatch jobStarted;

	static CountDownLatch finish;

	static final AtomicReference<Object> outcome = new AtomicReference<>();

	static String runId;

	private final StringRedisTemplate redis = SharedRedis.redis();

	private RedisLockClient otherInstance;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				DistributedLockAutoConfiguration.class, TaskSchedulingAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + SharedRedis.server().host(),
				"spring.data.redis.port=" + SharedRedis.server().port(),
				// the scheduler lets its running job go on until it is destroyed, after every lifecycle phase
				"spring.task.scheduling.shutdown.await-termination=true",
				"spring.task.scheduling.shutdown.await-termination-period=30s");

	@BeforeEach
	void setUp() {
		runId = UUID.randomUUID().toString();
		jobStarted = new CountDownLatch(1);
		finish = new CountDownLatch(1);
		outcome.set(null);
		this.otherInstance = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
	}

	@AfterEach
	void tearDown() {
		finish.countDown();
		this.otherInstance.close();
	}

	@Test
	void aScheduledJobInFlightKeepsItsLockThroughTheShutdownUntilItReturns(CapturedOutput output) {
		this.runner.withUserConfiguration(ScheduledJobConfiguration.class)
			.withPropertyValues("distributed-lock.shutdown-timeout=20s")
			.run((context) -> assertHeldThroughShutdownUntilReleased(context, "job:" + runId, output));
	}

	@Test
	void aPlainThreadInALockedMethodKeepsItsLockThroughTheShutdownUntilItReturns(CapturedOutput output) {
		this.runner.withPropertyValues("distributed-lock.shutdown-timeout=20s").run((context) -> {
			startPlainHolder(context.getBean(DistributedLockTemplate.class), "plain:" + runId);
			assertHeldThroughShutdownUntilReleased(context, "plain:" + runId, output);
		});
	}

	@Test
	void aHolderThatOutlivesTheShutdownTimeoutLosesItsLockWithAWarning(CapturedOutput output) {
		String key = "late:" + runId;
		this.runner.withPropertyValues("distributed-lock.shutdown-timeout=1s").run((context) -> {
			Thread holder = startPlainHolder(context.getBean(DistributedLockTemplate.class), key);
			assertThat(jobStarted.await(10, TimeUnit.SECONDS)).isTrue();
			long start = System.nanoTime();
			context.close();
			long closedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			// held, and renewed, for the grace period; then released with a warning naming the lock and its holder
			assertThat(closedAfter).isGreaterThanOrEqualTo(900);
			assertThat(output).contains("Shutdown: releasing lock '" + key + "'", "held by thread 'plain-holder'");
			assertThat(this.redis.hasKey("lock:" + key)).isFalse();
			assertThat((this.otherInstance.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(30))
					.autoRenew(false).interruptible(false).releasedByThread().build()) != null)).isTrue();
			this.otherInstance.release(key, LockType.REENTRANT);
			finish.countDown();
			holder.join(10_000);
			// the late release: the lock was lost, not an IllegalStateException of a stopped connection factory
			assertThat(outcome.get()).isInstanceOf(LockLostException.class);
		});
	}

	@Test
	void aCallWaitingForItsLockWhenTheShutdownBeginsGetsItRunsAndReleasesItBeforeTheClientCloses(
			CapturedOutput output) {
		String key = "waiting:" + runId;
		this.runner.withPropertyValues("distributed-lock.shutdown-timeout=20s").run((context) -> {
			assertThat((this.otherInstance.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(30))
					.autoRenew(false).interruptible(false).releasedByThread().build()) != null)).isTrue();
			DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
			Thread caller = new Thread(() -> {
				try {
					template.execute(LockDefinition.builder(key).acquireTimeout(Duration.ofSeconds(20)).build(), () -> {
						jobStarted.countDown();
						return null;
					});
					outcome.set("returned");
				}
				catch (Throwable ex) {
					outcome.set(ex);
				}
			}, "waiting-caller");
			caller.start();
			// it waits in Redis, queued behind the other instance's hold
			await().atMost(Duration.ofSeconds(10)).until(() -> this.redis.<String, String>opsForHash()
				.keys("lock:" + key).stream().anyMatch((field) -> field.startsWith("q:")));
			Thread closer = new Thread(context::close, "closer");
			closer.start();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> output.toString().contains("1 acquisition(s) under way to get their lock or give up: '"
						+ key + "' (REENTRANT, for thread 'waiting-caller')"));
			// the shutdown waits for it: before, the client closed under it and it failed with "closed"
			assertThat(closer.isAlive()).isTrue();
			this.otherInstance.release(key, LockType.REENTRANT);
			closer.join(10_000);
			caller.join(10_000);
			assertThat(outcome.get()).isEqualTo("returned");
			assertThat(jobStarted.getCount()).isZero();
			assertThat(this.redis.hasKey("lock:" + key)).isFalse();
			assertThat(output).contains("every lock was released by its holder");
		});
	}

	/**
	 * What a scheduler that keeps firing until it is destroyed (await-termination on) does: it calls a locked job
	 * after the lock client stopped. Before, the SKIP job threw "This lock client is closed" (the scheduler's
	 * ERROR, seen in the worker smoke test); a THROW method still throws, as documented.
	 */
	@Test
	void aSkipMethodCalledAfterTheLockClientStoppedIsSkippedWithAnInfoLineAndAThrowMethodStillThrows(
			CapturedOutput output) {
		this.runner.withUserConfiguration(LateCallerConfiguration.class).run((context) -> {
			LateCaller caller = context.getBean(LateCaller.class);
			context.close();
			assertThat(caller.skipOutcome).isEqualTo("returned null");
			assertThat(caller.throwOutcome).isInstanceOfSatisfying(DistributedLockException.class,
					(ex) -> assertThat(ex).hasMessageContaining("closed"));
			assertThat(jobStarted.getCount()).isOne();
			assertThat(output).contains("Skipped LateJobs.skipping(String) (onFailure = SKIP): "
					+ "the application is shutting down and lock 'late-skip:" + runId + "' could not be acquired: "
					+ "This lock client is closed");
		});
	}

	@Test
	void aReleaseAfterTheConnectionFactoryStoppedIsADistributedLockException() throws Exception {
		LettuceConnectionFactory factory = SharedRedis.server().connectionFactory();
		RedisLockClient client = new RedisLockClient(factory, "lock:");
		String key = "stopped-factory:" + runId;
		try {
			assertThat((client.acquire(LockRequest.builder(key).lease(Duration.ofMillis(600)).interruptible(false)
					.releasedByThread().build()) != null))
				.isTrue();
			factory.stop();
			// before: the factory's raw IllegalStateException
			assertThatExceptionOfType(DistributedLockException.class)
				.isThrownBy(() -> client.release(key, LockType.REENTRANT))
				.withMessageContaining(key);
		}
		finally {
			client.close();
			factory.destroy();
			this.redis.delete("lock:" + key);
		}
	}

	private void assertHeldThroughShutdownUntilReleased(ConfigurableApplicationContext context, String key,
			CapturedOutput output) throws Exception {
		assertThat(jobStarted.await(10, TimeUnit.SECONDS)).isTrue();
		Thread closer = new Thread(context::close, "closer");
		closer.start();
		// the shutdown reached the lock client: it says it waits (or, without a grace period, it freed the lock)
		await().atMost(Duration.ofSeconds(10))
			.until(() -> output.toString().contains("Shutdown: waiting up to") || !this.redis.hasKey("lock:" + key));
		// for more than three leases, the lock stays in Redis and no other instance can take it
		await().during(Duration.ofMillis(2000)).atMost(Duration.ofSeconds(5))
			.until(() -> this.redis.hasKey("lock:" + key) && !otherInstanceAcquires(key));
		assertThat(closer.isAlive()).isTrue();
		finish.countDown();
		closer.join(10_000);
		assertThat(closer.isAlive()).isFalse();
		assertThat(outcome.get()).isEqualTo("returned");
		assertThat(this.redis.hasKey("lock:" + key)).isFalse();
		assertThat(output).contains("every lock was released by its holder").doesNotContain("Shutdown: releasing lock");
	}

	private boolean otherInstanceAcquires(String key) throws InterruptedException {
		if ((this.otherInstance.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(30)).autoRenew(false)
				.interruptible(false).releasedByThread().build()) != null)) {
			this.otherInstance.release(key, LockType.REENTRANT);
			return true;
		}
		return false;
	}

	private static Thread startPlainHolder(DistributedLockTemplate template, String key) {
		Thread holder = new Thread(() -> {
			try {
				template.execute(LockDefinition.builder(key).lease(Duration.ofMillis(600)).build(), () -> {
					jobStarted.countDown();
					return finish.await(30, TimeUnit.SECONDS);
				});
				outcome.set("returned");
			}
			catch (Throwable ex) {
				outcome.set(ex);
			}
		}, "plain-holder");
		holder.start();
		return holder;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class ScheduledJobConfiguration {

		@Bean
		JobService jobService() {
			return new JobService();
		}

		@Bean
		ScheduledJob scheduledJob(JobService jobService) {
			return new ScheduledJob(jobService);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LateCallerConfiguration {

		@Bean
		LateJobs lateJobs() {
			return new LateJobs();
		}

		@Bean
		LateCaller lateCaller(LateJobs lateJobs) {
			return new LateCaller(lateJobs);
		}

	}

	static class LateJobs {

		@DistributedLock(name = "late-skip", key = "#id", onFailure = OnLockFailure.SKIP)
		public String skipping(String id) {
			jobStarted.countDown();
			return "ran";
		}

		@DistributedLock(name = "late-throw", key = "#id")
		public String throwing(String id) {
			jobStarted.countDown();
			return "ran";
		}

	}

	/** Calls the locked jobs when it stops: in phase 0, after the lock client's phase. */
	static class LateCaller implements SmartLifecycle {

		private final LateJobs jobs;

		private volatile boolean running;

		volatile Object skipOutcome;

		volatile Object throwOutcome;

		LateCaller(LateJobs jobs) {
			this.jobs = jobs;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
			this.skipOutcome = call(() -> this.jobs.skipping(runId));
			this.throwOutcome = call(() -> this.jobs.throwing(runId));
		}

		private static Object call(Supplier<String> job) {
			try {
				return "returned " + job.get();
			}
			catch (RuntimeException ex) {
				return ex;
			}
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return 0;
		}

	}

	static class JobService {

		@DistributedLock(name = "job", key = "#id", lease = LEASE)
		public void work(String id) throws InterruptedException {
			jobStarted.countDown();
			finish.await(30, TimeUnit.SECONDS);
		}

	}

	static class ScheduledJob {

		private final JobService jobService;

		ScheduledJob(JobService jobService) {
			this.jobService = jobService;
		}

		@Scheduled(initialDelay = 0, fixedDelay = 1, timeUnit = TimeUnit.DAYS)
		void run() {
			try {
				this.jobService.work(runId);
				outcome.set("returned");
			}
			catch (Throwable ex) {
				outcome.set(ex);
			}
		}

	}

}
