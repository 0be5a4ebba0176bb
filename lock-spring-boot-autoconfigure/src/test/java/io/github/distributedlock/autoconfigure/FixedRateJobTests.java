package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code fixedRate} job under {@code @DistributedLock} on two instances: the rate counts from each instance's
 * own startup, so the instances fire at phases of their own (here about 250 ms apart on a 500 ms rate), and a job that
 * ends before the other instance fires runs on both in every period. {@code holdAtLeast} a little shorter than
 * the period is the cure: the lock stays taken until the holder's own next firing, so the other instance skips.
 */
class FixedRateJobTests {

	private static final RedisServer server = SharedRedis.server();

	private static final long PERIOD_MILLIS = 500;

	private static final int PERIODS = 20;

	private static final String PHASE = "#{T(io.github.distributedlock.autoconfigure.FixedRateJobTests).secondPhaseDelay()}";

	/** Start times of the job's runs, in {@link System#nanoTime()}, across both instances. */
	static final Queue<Long> runs = new ConcurrentLinkedQueue<>();

	/** When the first instance first ran the job. */
	static volatile long firstPhase;

	/**
	 * The second instance's initial delay, so that it fires half a period after the first one (give or take its
	 * startup's last milliseconds): the two phases of a real deployment, made repeatable.
	 * @return milliseconds
	 */
	public static long secondPhaseDelay() {
		if (runs.isEmpty()) {
			return 0; // the first instance
		}
		long sinceFirst = Duration.ofNanos(System.nanoTime() - firstPhase).toMillis();
		return Math.floorMod(PERIOD_MILLIS / 2 - sinceFirst, PERIOD_MILLIS);
	}

	@Test
	void withoutHoldAtLeastBothInstancesRunTheJobInMostPeriods() {
		List<Long> starts = runTwentyPeriods(ShortJob.class);
		// both instances ran the job in (almost) every period: about twice as many runs as periods
		assertThat(starts).as("runs in %d periods of %d ms", PERIODS, PERIOD_MILLIS).hasSizeGreaterThan(PERIODS * 3 / 2);
	}

	@Test
	void holdAtLeastMakesAFixedRateJobRunOncePerPeriod() {
		List<Long> starts = runTwentyPeriods(HeldJob.class);
		assertThat(starts).as("runs in %d periods of %d ms", PERIODS, PERIOD_MILLIS)
			.hasSizeGreaterThanOrEqualTo(PERIODS - 2)
			.hasSizeLessThanOrEqualTo(PERIODS + 2);
		// a run holds the lock 400 ms at least, so no other run starts within that, on either instance
		assertThat(gapsMillis(starts)).allSatisfy((gap) -> assertThat(gap).isGreaterThanOrEqualTo(350));
	}

	private static List<Long> runTwentyPeriods(Class<?> job) {
		ApplicationContextRunner runner = LockApplications
			.runner("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"job.lock-name=fixed-rate-" + UUID.randomUUID())
			.withUserConfiguration(Scheduling.class)
			.withBean(job);
		runs.clear();
		List<Long> starts = new ArrayList<>();
		runner.run((first) -> {
			assertThat(first).hasNotFailed();
			await().atMost(Duration.ofSeconds(30)).until(() -> !runs.isEmpty());
			firstPhase = runs.peek();
			runner.run((second) -> {
				assertThat(second).hasNotFailed();
				// 20 periods once both instances run
				long from = System.nanoTime();
				long until = from + Duration.ofMillis(PERIOD_MILLIS * PERIODS).toNanos();
				await().atMost(Duration.ofSeconds(60)).until(() -> System.nanoTime() > until);
				runs.stream().filter((start) -> start >= from && start < until).sorted().forEach(starts::add);
			});
		});
		System.out.println(job.getSimpleName() + ": " + starts.size() + " runs in " + PERIODS + " periods of "
				+ PERIOD_MILLIS + " ms on two instances; gaps between runs (ms): " + gapsMillis(starts));
		return starts;
	}

	private static List<Long> gapsMillis(List<Long> starts) {
		List<Long> gaps = new ArrayList<>();
		for (int i = 1; i < starts.size(); i++) {
			gaps.add(Duration.ofNanos(starts.get(i) - starts.get(i - 1)).toMillis());
		}
		return gaps;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Scheduling {

	}

	static class ShortJob {

		@Scheduled(fixedRate = PERIOD_MILLIS, initialDelayString = PHASE)
		@DistributedLock(name = "${job.lock-name}")
		public void run() {
			runs.add(System.nanoTime()); // a job of a few milliseconds
		}

	}

	static class HeldJob {

		@Scheduled(fixedRate = PERIOD_MILLIS, initialDelayString = PHASE)
		@DistributedLock(name = "${job.lock-name}", holdAtLeast = "400ms")
		public void run() {
			runs.add(System.nanoTime());
		}

	}

}
