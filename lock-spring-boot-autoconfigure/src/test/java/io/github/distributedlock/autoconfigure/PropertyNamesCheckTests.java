package io.github.distributedlock.autoconfigure;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A misspelled {@code distributed-lock.*} key fails the startup with the closest valid key, instead of being
 * ignored while the default applies; a lease or acquire timeout given as a small bare number gets a WARN.
 */
@ExtendWith(OutputCaptureExtension.class)
class PropertyNamesCheckTests {

	private final LockPropertyFailureAnalyzer analyzer = new LockPropertyFailureAnalyzer();

	private static ApplicationContextRunner runner(String... properties) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LocalLockAutoConfiguration.class))
			.withPropertyValues("distributed-lock.store=local")
			.withPropertyValues(properties);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			distributed-lock.leese=5s            | distributed-lock.lease
			distributed-lock.aquire-timeout=1s   | distributed-lock.acquire-timeout
			distributed-lock.keyprefx=app:       | distributed-lock.key-prefix
			distributed-lock.endpoint.force-release=true | distributed-lock.endpoint.force-release-enabled
			""")
	void anUnknownKeyFailsTheStartupNamingTheClosestValidKey(String property, String closest) {
		runner(property).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			String key = property.substring(0, property.indexOf('='));
			assertThat(analysis.getDescription()).contains("Property: " + key)
				.contains("is no property of the distributed locks");
			assertThat(analysis.getAction()).startsWith("Did you mean " + closest + "?")
				.contains("distributed-lock.sync-timeout");
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "distributed-lock.keyPrefix=app:", "distributed-lock.key-prefix=app:",
			"distributed-lock.endpoint.force-release-enabled=true", "distributed-lock.shutdown-timeout=10s",
			"distributed-lock.enabled=true" })
	void everyDocumentedKeyInAnyRelaxedFormStarts(String property) {
		runner(property).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aKnownKeyWithAValueThatDoesNotBindIsReportedAsTheBadValueNotAsAnUnknownKey() {
		runner("distributed-lock.lease=abc").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().isNotInstanceOf(UnknownLockPropertyException.class);
			assertThat(context.getStartupFailure()).hasStackTraceContaining("distributed-lock.lease")
				.hasStackTraceContaining("abc");
		});
	}

	@Test
	void springBootPrintsTheReportWithWhereTheKeyWasSet(CapturedOutput output) {
		Throwable failure = FailedStartup.run(Map.of("distributed-lock.leese", "5s"));
		assertThat(failure).isInstanceOf(UnknownLockPropertyException.class);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Unknown property distributed-lock.leese")
			.contains("Property: distributed-lock.leese")
			.contains("Origin: \"distributed-lock.leese\" from property source \"defaultProperties\"")
			.contains("Did you mean distributed-lock.lease?");
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			distributed-lock.lease=300           | distributed-lock.lease = 300 is 300 milliseconds
			distributed-lock.acquire-timeout=50  | distributed-lock.acquire-timeout = 50 is 50 milliseconds
			""")
	void aSmallBareNumberForADurationWarns(String property, String warning, CapturedOutput output) {
		runner(property).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getOut().lines().filter((line) -> line.contains(warning)))
				.singleElement()
				.asString()
				.contains("WARN")
				.contains("Write");
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "distributed-lock.lease=300ms", "distributed-lock.lease=3000",
			"distributed-lock.acquire-timeout=0", "distributed-lock.acquire-timeout=2s" })
	void aDurationWithAUnitOrAThousandOrZeroDoesNotWarn(String property, CapturedOutput output) {
		runner(property).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain("a bare number is milliseconds");
		});
	}

}
