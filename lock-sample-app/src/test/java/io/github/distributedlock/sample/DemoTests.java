package io.github.distributedlock.sample;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the demo as the README's command does, on the Redis the sample finds or starts, and checks what it
 * claims: the locks prevent overselling, double draws and torn reads, and the semaphore keeps the partner API at
 * three calls at once. And since the sample may run on the user's own Redis: it leaves nothing there that does
 * not expire.
 */
class DemoTests {

	/** A port where no Redis answers: the sample starts its own, so the tests see only what it wrote. */
	private static final String[] NO_REDIS_THERE = { "--spring.data.redis.port=1" };

	@Test
	void theLocksPreventOversellingDoubleDrawsAndTornReadsAndTheDemoLeavesNoKey() throws Exception {
		ByteArrayOutputStream printed = new ByteArrayOutputStream();
		Demo.Report report;
		try (EmbeddedRedisFallback redis = EmbeddedRedisFallback.ensureRedis(NO_REDIS_THERE);
				PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
			report = Demo.run(redis.withConnectionArguments(NO_REDIS_THERE), out);
			assertThat(withoutServerLifeMarker(keysAndTtls(redis))).isEmpty();
		}
		String table = printed.toString(StandardCharsets.UTF_8);
		assertThat(table).contains("| Scenario", "Stock reservation, @DistributedLock", "Price catalogue, READ/WRITE locks");
		assertThat(report.oversoldWithLock()).isZero();
		assertThat(table).contains("Stock reservation, Mono @DistributedLock");
		assertThat(report.oversoldReactive()).isZero();
		assertThat(report.lotteryDraws()).isEqualTo(1);
		assertThat(report.lotteryStoredDraws()).isEqualTo(1);
		assertThat(report.tornReadsWithLock()).isZero();
		assertThat(report.readsWithLock()).isPositive();
		assertThat(table).contains("Partner API, @DistributedLock permits = 3", "Partner API, no limit");
		assertThat(report.partner().mostInsideLimited()).as("the most partner calls at once through the semaphore")
			.isEqualTo(PartnerGateway.MAX_CALLS_AT_ONCE);
		assertThat(report.partner().mostInsideUnlimited()).as("the most partner calls at once without it")
			.isGreaterThan(PartnerGateway.MAX_CALLS_AT_ONCE);
		assertThat(table).contains("Fenced stock, fencing token", "stale write refused");
		assertThat(report.fenced().staleWriteAccepted()).isFalse();
		assertThat(report.fenced().finalUnits()).isEqualTo(FencingDemo.NEWER_UNITS);
		assertThat(report.fenced().holderLearnedOfLoss()).isTrue();
		assertThat(cells(readmeDemoOutput())).as("the README's demo output, numbers aside")
			.isEqualTo(cells(table.lines().dropWhile((line) -> !line.startsWith("Demo:")).toList()));
	}

	/** The lines of the README's demo output block from its title on, as printed after the scenarios' logs. */
	private static List<String> readmeDemoOutput() throws IOException {
		List<String> readme = Files.readAllLines(Path.of("../README.md"));
		int title = readme.indexOf("Demo: 3 instances x 4 threads on one Redis");
		assertThat(title).as("the demo's title in the README").isPositive();
		assertThat(readme.get(title - 1)).as("the line before the title (a log line would break the table)").isEmpty();
		List<String> lines = new ArrayList<>();
		for (int i = title; !readme.get(i).startsWith("```"); i++) {
			lines.add(readme.get(i));
		}
		return lines;
	}

	/** The cells of a printed table, without padding, numbers as {@code #}, so two runs compare equal. */
	private static List<List<String>> cells(List<String> lines) {
		return lines.stream()
			.filter((line) -> !line.isBlank())
			.map((line) -> Arrays.stream(line.split("\\|"))
				.map((cell) -> cell.trim().replaceAll("\\d+", "#").replace("# thread more", "# threads more"))
				.filter((cell) -> !cell.isEmpty() && !cell.matches("-+"))
				.toList())
			.filter((row) -> !row.isEmpty())
			.toList();
	}

	@Test
	void todaysLotteryDrawIsKeptForADayAndThenExpires() throws Exception {
		try (EmbeddedRedisFallback redis = EmbeddedRedisFallback.ensureRedis(NO_REDIS_THERE)) {
			SpringApplication.run(SampleApplication.class, redis.withConnectionArguments(NO_REDIS_THERE)).close();
			Map<String, Long> keys = withoutServerLifeMarker(keysAndTtls(redis));
			assertThat(keys).hasSize(1);
			assertThat(keys).allSatisfy((key, ttlSeconds) -> {
				assertThat(key).startsWith("sample:lottery:daily-");
				assertThat(ttlSeconds).isBetween(SampleData.TTL.minusMinutes(5).toSeconds(), SampleData.TTL.toSeconds());
			});
		}
	}

	/**
	 * The keys without the lock client's server-life marker (docs/redis-data.md), after checking that the marker, if
	 * there, expires within a day of its last read as documented: it is the one key a lock client leaves, and it
	 * does not stay.
	 */
	private static Map<String, Long> withoutServerLifeMarker(Map<String, Long> keysAndTtls) {
		Map<String, Long> keys = new HashMap<>(keysAndTtls);
		Long markerTtl = keys.remove("sample:lock:__server-life");
		if (markerTtl != null) {
			assertThat(markerTtl).as("the server-life marker's TTL in seconds")
				.isBetween(1L, Duration.ofDays(1).toSeconds());
		}
		return keys;
	}

	/** Every key in the Redis, with its TTL in seconds (-1: none). */
	private static Map<String, Long> keysAndTtls(EmbeddedRedisFallback redis) {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		try {
			StringRedisTemplate template = new StringRedisTemplate(connectionFactory);
			Set<String> keys = template.keys("*");
			return keys.stream().collect(Collectors.toMap(Function.identity(),
					(key) -> template.getExpire(key, TimeUnit.SECONDS)));
		}
		finally {
			connectionFactory.destroy();
		}
	}

}
