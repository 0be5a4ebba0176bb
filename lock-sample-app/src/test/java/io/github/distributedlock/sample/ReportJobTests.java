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
				long at = Long.parseLong(run.substring(run.indexOf('@') + 1));
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

	private static ConfigurableApplicationContext start(String name, Duration clockBehind) {
		List<String> args = new ArrayList<>(List.of(connection));
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
