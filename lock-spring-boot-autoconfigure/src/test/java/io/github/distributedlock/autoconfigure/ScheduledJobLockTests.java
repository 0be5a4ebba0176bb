package io.github.distributedlock.autoconfigure;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} on a {@code @Scheduled} method: every instance starts the job at the same clock time,
 * and with the attributes left unset the instances that lose the lock skip the period instead of waiting for the
 * winner and running the job once more. Startup says which scheduled methods are locked and warns about one that
 * waits.
 */
@ExtendWith(OutputCaptureExtension.class)
class ScheduledJobLockTests {

	private static final RedisServer server = SharedRedis.server();

	/** Runs of the job per wall-clock second (the cron period), across both instances. */
	static final Map<Long, AtomicInteger> runsPerPeriod = new ConcurrentHashMap<>();

	@Test
	void twoInstancesRunAScheduledJobOncePerPeriod() {
		ApplicationContextRunner runner = LockApplications
			.runner("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"job.lock-name=naive-job-" + UUID.randomUUID())
			.withUserConfiguration(Scheduling.class)
			.withBean(EverySecondJob.class);
		runsPerPeriod.clear();
		LockApplications.runTwo(runner, (first, second) -> {
			assertThat(first).hasNotFailed();
			assertThat(second).hasNotFailed();
			await().atMost(Duration.ofSeconds(30)).until(() -> runsPerPeriod.size() >= 4);
		});
		// the schedule fired on both instances every second: one ran the job, the other skipped the period
		assertThat(runsPerPeriod).allSatisfy((period, runs) -> assertThat(runs.get())
			.as("runs of the job in the period starting at second %d", period)
			.isEqualTo(1));
	}

	@Test
	void startupListsTheLockedScheduledMethodsAndTheirDefaults(CapturedOutput output) {
		localRunner().withBean(EverySecondJob.class).withPropertyValues("job.lock-name=listed-job").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getOut().lines().filter((line) -> line.contains("@Scheduled methods under @DistributedLock")))
				.singleElement()
				.asString()
				.contains("INFO")
				.contains("EverySecondJob.run() on lock 'listed-job': tries once (scheduled default), then SKIP "
						+ "(scheduled default)");
			assertThat(output.getOut()).doesNotContain("runs the job again");
		});
	}

	@Test
	void anExplicitAcquireTimeoutWinsWithAWarning(CapturedOutput output) {
		localRunner().withBean(WaitingJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getOut().lines().filter((line) -> line.contains("runs the job again")))
				.singleElement()
				.asString()
				.contains("WARN")
				.contains("WaitingJob.run()")
				.contains("acquireTimeout = \"2000ms\"");
			assertThat(output.getOut()).contains("WaitingJob.run() on lock 'waiting-job': waits up to 2000 ms, then SKIP (scheduled default)");
		});
	}

	@Test
	void anExplicitSkipOnAScheduledMethodIsKept(CapturedOutput output) {
		localRunner().withBean(SkippingJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getOut().replace("\r", ""))
				.contains("SkippingJob.run() on lock 'skipping-job': tries once (scheduled default), then SKIP\n");
		});
	}

	@Test
	void anExplicitThrowOnAScheduledMethodIsKept(CapturedOutput output) {
		localRunner().withBean(ThrowingJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getOut().replace("\r", ""))
				.contains("ThrowingJob.run() on lock 'throwing-job': tries once (scheduled default), then THROW\n");
		});
	}

	@Test
	void theScheduledDefaultsApplyThroughAMetaAnnotation(CapturedOutput output) {
		localRunner().withBean(MetaAnnotatedJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getOut()).contains("MetaAnnotatedJob.run() on lock 'nightly': tries once (scheduled "
					+ "default), then SKIP (scheduled default)");
		});
	}

	@Test
	void aFixedRateOrFixedDelayJobWithoutHoldAtLeastIsNamedInAWarning(CapturedOutput output) {
		localRunner().withBean(FixedRateJob.class).withBean(SkippingJob.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getOut().lines().filter((line) -> line.contains("without holdAtLeast")))
				.satisfiesExactlyInAnyOrder(
						(line) -> assertThat(line).contains("WARN")
							.contains("@Scheduled(fixedRate) method FixedRateJob.run() (bean")
							.contains("fires at each instance's own phase")
							.contains("Set holdAtLeast a little shorter than the period"),
						(line) -> assertThat(line).contains("WARN")
							.contains("@Scheduled(fixedDelay) method SkippingJob.run() (bean"));
		});
	}

	@Test
	void aCronJobOrOneWithHoldAtLeastGetsNoPhaseWarning(CapturedOutput output) {
		localRunner().withBean(HeldFixedRateJob.class)
			.withBean(EverySecondJob.class)
			.withPropertyValues("job.lock-name=cron-job")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output.getOut()).contains("HeldFixedRateJob.run() on lock 'held-job'")
					.doesNotContain("without holdAtLeast");
			});
	}

	private static ApplicationContextRunner localRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LocalLockAutoConfiguration.class))
			.withPropertyValues("distributed-lock.store=local");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Scheduling {

	}

	static class EverySecondJob {

		@Scheduled(cron = "* * * * * *")
		@DistributedLock(name = "${job.lock-name}")
		public void run() throws InterruptedException {
			runsPerPeriod.computeIfAbsent(System.currentTimeMillis() / 1000, (second) -> new AtomicInteger())
				.incrementAndGet();
			Thread.sleep(600); // the job's work, most of the period
		}

	}

	static class FixedRateJob {

		@Scheduled(fixedRate = 3_600_000, initialDelay = 3_600_000)
		@DistributedLock(name = "rate-job")
		public void run() {
		}

	}

	static class HeldFixedRateJob {

		@Scheduled(fixedRate = 3_600_000, initialDelay = 3_600_000)
		@DistributedLock(name = "held-job", holdAtLeast = "50m")
		public void run() {
		}

	}

	static class WaitingJob {

		@Scheduled(fixedDelay = 3_600_000, initialDelay = 3_600_000)
		@DistributedLock(name = "waiting-job", acquireTimeout = "2s")
		public void run() {
		}

	}

	static class ThrowingJob {

		@Scheduled(fixedDelay = 3_600_000, initialDelay = 3_600_000)
		@DistributedLock(name = "throwing-job", onFailure = OnLockFailure.THROW)
		public void run() {
		}

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@DistributedLock(name = "nightly")
	@interface NightlyLock {

	}

	static class MetaAnnotatedJob {

		@Scheduled(fixedDelay = 3_600_000, initialDelay = 3_600_000)
		@NightlyLock
		public void run() {
		}

	}

	static class SkippingJob {

		@Scheduled(fixedDelay = 3_600_000, initialDelay = 3_600_000)
		@DistributedLock(name = "skipping-job", onFailure = OnLockFailure.SKIP)
		public void run() {
		}

	}

}
