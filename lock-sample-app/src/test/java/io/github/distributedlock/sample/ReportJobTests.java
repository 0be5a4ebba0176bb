package io.github.distributedlock.sample;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The scheduled report job on three instances whose clocks differ (by 0, 400 and 800 ms, so they fire each
 * period's job that much apart): it runs once per period, never twice in one, and every period runs. Without
 * the minimum hold, the late instances would find the quick job's lock free and run it again.
 */
class ReportJobTests {

	private static EmbeddedRedisFallback redis;

	private static String[] connection;

	@BeforeAll
	static void startRedis() throws Exception {
		// a port where no Redis answers: the sample starts its own
		String[] args = { "--spring.data.redis.port=1" };
		redis = EmbeddedRedisFallback.ensureRedis(args);
		connection = redis.withConnectionArguments(args);
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void threeInstancesRunTheJobOncePerPeriod() {
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				instances.add(start("instance-" + i, Duration.ofMillis(400L * i)));
			}
			StringRedisTemplate redisTemplate = instances.get(0).getBean(StringRedisTemplate.class);
			redisTemplate.delete(ReportJob.RUNS_KEY);
			ReportJob job = instances.get(0).getBean(ReportJob.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> job.runs().size() >= 4);
			Map<Long, List<String>> byPeriod = new HashMap<>();
			for (String run : job.runs()) {
				long at = startedAt(run);
				byPeriod.computeIfAbsent(at / 2000, (period) -> new ArrayList<>()).add(run);
			}
			assertThat(byPeriod.values()).as("runs per 2 s period").allSatisfy((runs) -> assertThat(runs).hasSize(1));
			long first = byPeriod.keySet().stream().min(Long::compare).orElseThrow();
			long last = byPeriod.keySet().stream().max(Long::compare).orElseThrow();
			assertThat(byPeriod).as("every period between the first and the last ran").hasSize((int) (last - first + 1));
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	/**
	 * Issue 12's case of a job longer than its period: two instances (the second's clock 400 ms behind) run a job
	 * that works 3 s on a 2 s schedule. The firings that come while a run works find the lock taken and skip, so
	 * runs never overlap and no period runs twice; the first firing after a run ended runs it again. Without the
	 * lock both instances run every free firing, 400 ms apart, each run overlapping the other's.
	 */
	@Test
	void aJobLongerThanItsPeriodNeverOverlapsItselfAndRunsAgainAtTheFirstFiringAfterItEnds() {
		Duration work = Duration.ofSeconds(3);
		Duration period = Duration.ofSeconds(2);
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			for (int i = 0; i < 2; i++) {
				instances.add(start("instance-" + i, Duration.ofMillis(400L * i), "--sample.report.work=3s"));
			}
			instances.get(0).getBean(StringRedisTemplate.class).delete(ReportJob.RUNS_KEY);
			ReportJob job = instances.get(0).getBean(ReportJob.class);
			// two runs: the second is the first firing after the first run ended, two periods later
			await().atMost(Duration.ofSeconds(20)).until(() -> job.runs().size() >= 2);
			// the other instance fires 400 ms after each firing: watch a while longer for a run of its at the same
			// firing (a later run may only start 3 s on, after this one's work)
			await().during(Duration.ofMillis(1500))
				.atMost(Duration.ofSeconds(3))
				.untilAsserted(() -> assertThat(startsApart(job.runs()))
					.as("ms between the starts of consecutive runs %s", job.runs())
					.allSatisfy((apart) -> assertThat(apart).isGreaterThanOrEqualTo(work.toMillis())));
			List<String> runs = job.runs();
			for (int i = 1; i < runs.size(); i++) {
				long apart = startedAt(runs.get(i)) - startedAt(runs.get(i - 1));
				assertThat(apart).as("ms between the starts of %s and %s", runs.get(i - 1), runs.get(i))
					// the later run started after the earlier one's 3 s of work: they never overlapped
					.isGreaterThanOrEqualTo(work.toMillis())
					// and at the first firing after it (of either instance), not a period later
					.isLessThan(work.plus(period).plusMillis(400 + 600).toMillis());
			}
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
	}

	/** How many ms after the one before it each run started. */
	private static List<Long> startsApart(List<String> runs) {
		List<Long> apart = new ArrayList<>();
		for (int i = 1; i < runs.size(); i++) {
			apart.add(startedAt(runs.get(i)) - startedAt(runs.get(i - 1)));
		}
		return apart;
	}

	private static long startedAt(String run) {
		return Long.parseLong(run.substring(run.indexOf('@') + 1));
	}

	private static ConfigurableApplicationContext start(String name, Duration clockBehind, String... more) {
		List<String> args = new ArrayList<>(List.of(connection));
		args.addAll(List.of(more));
		args.add("--sample.lottery-on-startup=false");
		args.add("--sample.report.enabled=true");
		args.add("--sample.report.cron=*/2 * * * * *");
		args.add("--sample.report.hold-at-least=1500ms");
		args.add("--sample.instance-name=" + name);
		args.add("--test.clock-behind=" + clockBehind.toMillis() + "ms");
		return new SpringApplicationBuilder(SampleApplication.class, LaggingScheduler.class)
			.web(WebApplicationType.NONE)
			.run(args.toArray(String[]::new));
	}

	/** A scheduler whose clock is {@code test.clock-behind} behind: it fires cron jobs that much later. */
	@Configuration(proxyBeanMethods = false)
	static class LaggingScheduler {

		@Bean
		ThreadPoolTaskScheduler taskScheduler(@Value("${test.clock-behind}") Duration behind) {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			scheduler.setClock(Clock.offset(Clock.systemDefaultZone(), behind.negated()));
			return scheduler;
		}

	}

}
