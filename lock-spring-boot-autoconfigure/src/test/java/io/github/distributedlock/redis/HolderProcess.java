package io.github.distributedlock.redis;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LockHolderMain} in a JVM of its own, to be killed with SIGKILL.
 */
final class HolderProcess implements AutoCloseable {

	private final Process process;

	private final String owner;

	HolderProcess(int port, String key, long leaseMillis, String type) throws IOException {
		this(port, key, leaseMillis, type, 1);
	}

	/**
	 * Starts a holder of one permit of a semaphore ({@code permits > 1}) or of a lock, trying once.
	 */
	HolderProcess(int port, String key, long leaseMillis, String type, int permits) throws IOException {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		this.process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				LockHolderMain.class.getName(), Integer.toString(port), key, Long.toString(leaseMillis), type, "0",
				Integer.toString(permits))
			.redirectErrorStream(true)
			.start();
		BufferedReader out = new BufferedReader(new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8));
		StringBuilder printed = new StringBuilder();
		String line;
		do {
			line = out.readLine();
			if (line != null) {
				printed.append(line).append('\n');
			}
		}
		while (line != null && !line.startsWith("HELD "));
		if (line == null) {
			this.process.destroyForcibly();
			throw new IllegalStateException("The holder process ended without acquiring " + key + "; it printed:\n" + printed);
		}
		this.owner = line.substring("HELD ".length());
	}

	String owner() {
		return this.owner;
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
