package io.github.distributedlock.integration;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LeaderMain} in a JVM of its own, to be killed with SIGKILL.
 */
final class LeaderProcess implements AutoCloseable {

	private final Process process;

	/**
	 * Starts the process and waits until it is the leader.
	 * @throws IllegalStateException if it ended first, with what it printed
	 */
	LeaderProcess(int port, String role, Duration lease) throws IOException {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		this.process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), LeaderMain.class.getName(),
				Integer.toString(port), role, Long.toString(lease.toMillis()))
			.redirectErrorStream(true)
			.start();
		BufferedReader out = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8));
		StringBuilder printed = new StringBuilder();
		String line;
		do {
			line = out.readLine();
			if (line != null) {
				printed.append(line).append('\n');
			}
		}
		while (line != null && !line.equals("GRANTED"));
		if (line == null) {
			this.process.destroyForcibly();
			throw new IllegalStateException("The leader process ended without being elected; it printed:\n" + printed);
		}
		// keep reading, so that the child never blocks on a full pipe
		Thread drain = new Thread(() -> {
			try {
				out.transferTo(Writer.nullWriter());
			}
			catch (IOException ex) {
				// the process ended
			}
		}, "leader-process-output");
		drain.setDaemon(true);
		drain.start();
	}

	/**
	 * Kills the process with SIGKILL: no shutdown hook runs, nothing is released or published.
	 */
	void kill() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		kill();
	}

}
