package io.github.distributedlock.smoke;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.Awaitility;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application under test as users run it: {@code java -jar} on the repackaged jar of the module (the system
 * property {@code smoke.jar}, set by the failsafe configuration), as a process of its own, its stdout and stderr in
 * a log file under {@code smoke.logs} ({@code target/smoke-logs/<name>.log}), checked from the outside.
 * An instance is used by one test thread.
 */
public final class SmokeApplication implements AutoCloseable {

	/** How long a start may take on a small, shared CI machine. */
	private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

	/** Spring Boot's line once the context is refreshed and the runners ran. */
	private static final String STARTED = "Started ";

	/** The web server's line: "Tomcat started on port 8080 (http) ...", "Netty started on port 8080 (http)". */
	private static final String SERVER_STARTED = " started on port ";

	private static final Pattern HTTP_PORT = Pattern.compile(SERVER_STARTED + "(\\d+)");

	private final String name;

	private final Process process;

	private final Path log;

	private SmokeApplication(String name, Process process, Path log) {
		this.name = name;
		this.process = process;
		this.log = log;
	}

	/**
	 * Starts the module's jar on the given Redis with the README's Quick-start YAML
	 * ({@code --spring.config.additional-location}) and the Redis host and port as arguments, then the others.
	 * @param name the instance's name, also its log file's
	 * @param redis the server the application connects to
	 * @param arguments further arguments, such as {@code --server.port=...}
	 * @return the running process; the caller closes it
	 * @throws UncheckedIOException if the process cannot be started
	 */
	public static SmokeApplication start(String name, SmokeRedis redis, String... arguments) {
		List<String> all = new ArrayList<>(List.of("--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + redis.port()));
		all.addAll(List.of(arguments));
		return startWithoutSpringDataRedis(name, all.toArray(String[]::new));
	}

	/**
	 * Starts the module's jar with the README's Quick-start YAML and the given arguments, and no Redis of its own
	 * under {@code spring.data.redis} (the Quick start names none): an application whose locks live elsewhere, such
	 * as on Redlock nodes. Spring Boot's defaults would point it at {@code localhost:6379}; the application must not
	 * use that.
	 * @param name the instance's name, also its log file's
	 * @param arguments further arguments
	 * @return the running process; the caller closes it
	 * @throws UncheckedIOException if the process cannot be started
	 */
	public static SmokeApplication startWithoutSpringDataRedis(String name, String... arguments) {
		List<String> all = new ArrayList<>(List.of(ReadmeYaml.argument()));
		all.addAll(List.of(arguments));
		return start(name, all);
	}

	/**
	 * Starts the module's jar with exactly these arguments.
	 * @param name the instance's name, also its log file's
	 * @param arguments the application's arguments
	 * @return the running process; the caller closes it
	 * @throws UncheckedIOException if the process cannot be started
	 */
	public static SmokeApplication start(String name, List<String> arguments) {
		String jar = System.getProperty("smoke.jar");
		assertThat(jar).as("system property smoke.jar (set by the failsafe configuration)").isNotBlank();
		assertThat(Path.of(jar)).as("the repackaged application").isRegularFile();
		Path logs = Path.of(System.getProperty("smoke.logs", "target/smoke-logs"));
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				// a quick start on a small machine; the application is the same
				"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m", "-jar", jar));
		command.addAll(arguments);
		try {
			Files.createDirectories(logs);
			Path log = logs.resolve(name + ".log");
			Files.writeString(log, "");
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
			return new SmokeApplication(name, process, log);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + command, ex);
		}
	}

	/**
	 * Returns the instance's name.
	 * @return the name given at the start
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Returns what the process printed so far.
	 * @return its lines, stdout and stderr mixed as printed
	 */
	public List<String> lines() {
		try {
			return Files.readAllLines(this.log, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Waits until Spring Boot logs that the application started.
	 * @throws AssertionError if the process ends first (with its log), or after 90 s
	 */
	public void awaitStarted() {
		awaitLine(STARTED, START_TIMEOUT);
	}

	/**
	 * Returns the port the application's web server listens on: start it with {@code --server.port=0}, and the
	 * port is read from the line the server logs (Tomcat's or Netty's "started on port ...").
	 * @return the HTTP port
	 * @throws AssertionError if the process ends first, or after 90 s
	 */
	public int httpPort() {
		awaitLine(SERVER_STARTED, START_TIMEOUT);
		return lines().stream()
			.map(HTTP_PORT::matcher)
			.filter(Matcher::find)
			.map((matcher) -> Integer.parseInt(matcher.group(1)))
			.findFirst()
			.orElseThrow();
	}

	/**
	 * Waits until a line containing the text is logged.
	 * @param text what the line contains
	 * @param atMost how long to wait
	 * @throws AssertionError if the process ends first (with its log), or after {@code atMost}
	 */
	public void awaitLine(String text, Duration atMost) {
		Awaitility.await(this.name + " logging '" + text + "'")
			.atMost(atMost)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				if (hasLine(text)) {
					return true;
				}
				if (!this.process.isAlive() && !hasLine(text)) {
					throw new AssertionError(this.name + " ended with exit code " + this.process.exitValue()
							+ " before logging '" + text + "':\n" + String.join("\n", lines()));
				}
				return false;
			});
	}

	/**
	 * Tells whether a line containing the text was logged.
	 * @param text what the line contains
	 * @return {@code true} if one was
	 */
	public boolean hasLine(String text) {
		return lines().stream().anyMatch((line) -> line.contains(text));
	}

	/**
	 * Tells whether the process still runs.
	 * @return {@code true} until it ended
	 */
	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Waits for the process to end by itself.
	 * @param atMost how long to wait
	 * @return its exit code
	 * @throws AssertionError if it still runs after {@code atMost}
	 */
	public int awaitExit(Duration atMost) {
		try {
			if (!this.process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new AssertionError(this.name + " did not exit within " + atMost + ":\n" + String.join("\n", lines()));
			}
			return this.process.exitValue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
	}

	/**
	 * Stops the process as a platform does (SIGTERM through its handle: Spring Boot's shutdown hook closes the
	 * context) and waits for its end.
	 * @param atMost how long to wait
	 * @return its exit code: 143 (128 + SIGTERM) after the shutdown hooks ran
	 * @throws AssertionError if it still runs after {@code atMost}
	 */
	public int stop(Duration atMost) {
		this.process.toHandle().destroy();
		return awaitExit(atMost);
	}

	/**
	 * Asserts that no line of the log is an ERROR (Spring Boot's console pattern: the level between spaces) and
	 * that no exception was printed.
	 * @throws AssertionError naming the lines
	 */
	public void assertNoErrors() {
		List<String> lines = lines();
		assertThat(lines).as(this.name + "'s log:\n" + String.join("\n", lines))
			.noneMatch((line) -> line.contains(" ERROR "))
			.noneMatch((line) -> line.startsWith("Exception in thread") || line.startsWith("Caused by:"));
	}

	/** Kills the process (SIGKILL through its handle) if it still runs. */
	@Override
	public void close() {
		if (this.process.isAlive()) {
			this.process.toHandle().destroyForcibly();
			try {
				this.process.waitFor(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
