package io.github.distributedlock.benchmarks;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.test.ExclusionChecker;

/**
 * A {@link ChaosHolder} JVM contending for the chaos run's key, whose holds the run's checker sees: when it
 * reports a hold, this side enters the checker with its token, stays 20–300 ms (the holder's body), leaves,
 * and tells it to release. {@link #kill()} kills it with SIGKILL, at best while it holds; {@link #restart()}
 * starts a new one. Thread-safe.
 */
final class HolderJvm implements AutoCloseable {

	/** The holder's main class and its arguments. */
	private final List<String> mainAndArgs;

	private final ExclusionChecker checker;

	private Process process;

	private boolean holding;

	private int holds;

	HolderJvm(int port, String key, ExclusionChecker checker) {
		this(List.of(ChaosHolder.class.getName(), Integer.toString(port), key), checker);
	}

	/**
	 * Starts a holder JVM of another main class that speaks as {@link ChaosHolder} does: prints
	 * {@link ChaosHolder#HELD} and the token when it holds, and releases when it reads a line.
	 * @param mainAndArgs the main class and its arguments
	 * @param checker the run's checker, which sees the holder's bodies
	 */
	HolderJvm(List<String> mainAndArgs, ExclusionChecker checker) {
		this.mainAndArgs = List.copyOf(mainAndArgs);
		this.checker = checker;
		restart();
	}

	/** Starts a new holder JVM, and a thread that plays its bodies. */
	synchronized void restart() {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		try {
			List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path")));
			command.addAll(this.mainAndArgs);
			this.process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD)
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start a holder JVM", ex);
		}
		Process started = this.process;
		Thread player = new Thread(() -> play(started), "holder-jvm-" + started.pid());
		player.setDaemon(true);
		player.start();
	}

	private void play(Process holder) {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
			OutputStream answers = holder.getOutputStream();
			String line;
			while ((line = lines.readLine()) != null) {
				if (!line.startsWith(ChaosHolder.HELD)) {
					continue;
				}
				synchronized (this) {
					if (holder != this.process) {
						return;
					}
					this.checker.enter(Long.parseLong(line.substring(ChaosHolder.HELD.length()).trim()));
					this.holding = true;
					this.holds++;
				}
				// the holder's body: the workload, not synchronisation
				LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(20, 301) * 1_000_000);
				synchronized (this) {
					if (!this.holding || holder != this.process) {
						// killed meanwhile: kill() left the checker
						return;
					}
					this.checker.leave();
					this.holding = false;
				}
				answers.write('\n');
				answers.flush();
			}
		}
		catch (IOException ex) {
			// the holder was killed
		}
	}

	/**
	 * Tells whether the holder JVM holds the lock now.
	 * @return {@code true} between its report of a hold and the end of the body this side plays for it
	 */
	synchronized boolean holding() {
		return this.holding;
	}

	/**
	 * Kills the holder JVM with SIGKILL; a hold it had stays in Redis until its lease ends.
	 * @return whether it held the lock when killed
	 */
	synchronized boolean kill() {
		boolean held = this.holding;
		if (held) {
			// a dead holder runs no body: its lease, still in Redis, is what keeps the others out
			this.checker.leave();
			this.holding = false;
		}
		this.process.destroyForcibly();
		try {
			this.process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return held;
	}

	/**
	 * Returns how many holds the holder JVMs reported.
	 * @return the count over every JVM started
	 */
	synchronized int holds() {
		return this.holds;
	}

	@Override
	public void close() {
		kill();
	}

}
