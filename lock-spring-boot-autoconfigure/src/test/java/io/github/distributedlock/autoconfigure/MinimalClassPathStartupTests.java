package io.github.distributedlock.autoconfigure;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The unknown-key check accepts every key of the library on a class path without a JSON library (no Jackson, no
 * Gson), as a worker application with only the starter has: it once read the configuration metadata with
 * Spring Boot's {@code BasicJsonParser}, which knew one key, so such an application refused the README's own
 * {@code key-prefix}. The application runs in a JVM of its own, with the test class path less Jackson and Gson.
 */
class MinimalClassPathStartupTests {

	/** The README's quick-start YAML and every key of its properties table, each with a valid value. */
	private static final List<String> README_PROPERTIES = List.of("--distributed-lock.key-prefix=min:lock:",
			"--distributed-lock.lease=30s", "--distributed-lock.acquire-timeout=5s", "--distributed-lock.enabled=true",
			"--distributed-lock.sync-replicas=0", "--distributed-lock.sync-timeout=100ms",
			"--distributed-lock.shutdown-timeout=30s", "--distributed-lock.store=local",
			"--distributed-lock.on-lost=none", "--distributed-lock.commit-guard.enabled=true",
			"--distributed-lock.commit-guard.margin=1s", "--distributed-lock.endpoint.force-release-enabled=false",
			"--distributed-lock.advisor-order=2147483547");

	@Test
	void everyDocumentedKeyStartsAnApplicationWithoutAJsonLibrary() throws Exception {
		Result result = start(README_PROPERTIES);
		assertThat(result.output()).contains("STARTED").doesNotContain("UnknownLockPropertyException");
		assertThat(result.exitCode()).isZero();
	}

	@Test
	void aMisspelledKeyStillFailsTheStartupWithoutAJsonLibrary() throws Exception {
		Result result = start(List.of("--distributed-lock.store=local", "--distributed-lock.leese=5s"));
		assertThat(result.output()).doesNotContain("STARTED")
			.contains("Unknown property distributed-lock.leese")
			.contains("Did you mean distributed-lock.lease?");
		assertThat(result.exitCode()).isNotZero();
	}

	private static Result start(List<String> arguments) throws IOException, InterruptedException {
		String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.contains("jackson") && !entry.contains("gson"))
			.collect(Collectors.joining(File.pathSeparator));
		assertThat(classPath).isNotEqualTo(System.getProperty("java.class.path"));
		List<String> command = new ArrayList<>(List.of(
				System.getProperty("java.home") + File.separator + "bin" + File.separator + "java", "-cp", classPath,
				MinimalStartupMain.class.getName()));
		command.addAll(arguments);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		try {
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the application ended").isTrue();
			return new Result(output, process.exitValue());
		}
		finally {
			process.destroyForcibly();
		}
	}

	private record Result(String output, int exitCode) {
	}

}
