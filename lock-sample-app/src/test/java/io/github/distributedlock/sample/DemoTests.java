package io.github.distributedlock.sample;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the demo as the README's command does, on the Redis the sample finds or starts, and checks what it
 * claims: the locks prevent overselling, double draws and torn reads.
 */
class DemoTests {

	@Test
	void theLocksPreventOversellingDoubleDrawsAndTornReads() throws Exception {
		ByteArrayOutputStream printed = new ByteArrayOutputStream();
		// a port where no Redis answers: the sample must start its own
		String[] args = { "--spring.data.redis.port=1" };
		Demo.Report report;
		try (EmbeddedRedisFallback redis = EmbeddedRedisFallback.ensureRedis(args);
				PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
			report = Demo.run(redis.withConnectionArguments(args), out);
		}
		String table = printed.toString(StandardCharsets.UTF_8);
		assertThat(table).contains("| Scenario", "Stock reservation, @DistributedLock", "Price catalogue, READ/WRITE locks");
		assertThat(report.oversoldWithLock()).isZero();
		assertThat(report.lotteryDraws()).isEqualTo(1);
		assertThat(report.lotteryStoredDraws()).isEqualTo(1);
		assertThat(report.tornReadsWithLock()).isZero();
		assertThat(report.readsWithLock()).isPositive();
		assertThat(table).contains("Fenced stock, fencing token", "stale write refused");
		assertThat(report.fenced().staleWriteAccepted()).isFalse();
		assertThat(report.fenced().finalUnits()).isEqualTo(FencingDemo.NEWER_UNITS);
		assertThat(report.fenced().holderLearnedOfLoss()).isTrue();
	}

}
