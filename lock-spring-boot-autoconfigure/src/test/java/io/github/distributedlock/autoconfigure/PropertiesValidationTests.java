package io.github.distributedlock.autoconfigure;

import java.util.Map;

import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code distributed-lock.*} value the library cannot use fails the startup while the properties are bound,
 * with a report that names the property, its value as written and where it was set, and what works.
 */
@ExtendWith(OutputCaptureExtension.class)
class PropertiesValidationTests {

	private static final RedisServer server = SharedRedis.server();

	private final LockPropertyFailureAnalyzer analyzer = new LockPropertyFailureAnalyzer();

	@Test
	void springBootPrintsOurReportRatherThanItsGeneralBindingOne(CapturedOutput output) {
		Throwable failure = FailedStartup.run(Map.of("distributed-lock.lease", "20ms"));
		assertThat(failure).hasRootCauseInstanceOf(InvalidLockPropertyException.class);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Invalid value of distributed-lock.lease")
			.contains("Set distributed-lock.lease to at least 100ms")
			.doesNotContain("Update your application's configuration");
	}

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource(delimiter = '|', textBlock = """
			distributed-lock.lease           | 20ms | too short to renew | at least 100ms
			distributed-lock.lease           | -1s  | must be positive   | at least 100ms
			distributed-lock.lease           | 0    | must be positive   | at least 100ms
			distributed-lock.acquire-timeout | -5s  | must not be negative | 0 (try once)
			distributed-lock.shutdown-timeout | -1s | must not be negative | 0 (release at once)
			""")
	void aBadValueFailsTheStartupWithAReportNamingPropertyValueAndOrigin(String property, String value,
			String reason, String fix) {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					property + "=" + value)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("Property: " + property)
					.contains("Value: \"" + value + "\"")
					.contains("Origin: \"" + property + "\" from property source")
					.contains(reason);
				assertThat(analysis.getAction()).contains(property).contains(fix);
			});
	}

	@Test
	void aNegativeShutdownTimeoutFailsTheLocalStoresStartupWithTheSameReport() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LocalLockAutoConfiguration.class))
			.withPropertyValues("distributed-lock.store=local", "distributed-lock.shutdown-timeout=-1s")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("Property: distributed-lock.shutdown-timeout")
					.contains("Value: \"-1s\"")
					.contains("must not be negative");
				assertThat(analysis.getAction()).contains("0 (release at once)");
			});
	}

}
