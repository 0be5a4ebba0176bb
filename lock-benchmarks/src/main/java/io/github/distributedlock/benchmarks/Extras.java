package io.github.distributedlock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Numbers JMH does not report (invariant violations, fairness, the writer's longest wait), written by the
 * forked benchmark JVM to a properties file per benchmark and peer, read back by the runner ({@link JmhResults}).
 */
final class Extras {

	private Extras() {
	}

	static Path file(String benchmark, String peer) {
		return Path.of(System.getProperty("bench.extras.dir", "target/bench-extras"), benchmark + "-" + peer + ".properties");
	}

	static synchronized void put(String benchmark, String peer, String name, long value) {
		Path file = file(benchmark, peer);
		Properties properties = read(benchmark, peer);
		properties.setProperty(name, Long.toString(value));
		try {
			Files.createDirectories(file.getParent());
			try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
				properties.store(out, null);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static Properties read(String benchmark, String peer) {
		Properties properties = new Properties();
		Path file = file(benchmark, peer);
		if (Files.exists(file)) {
			try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
				properties.load(in);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return properties;
	}

	static void clear(String benchmark, String peer) {
		try {
			Files.deleteIfExists(file(benchmark, peer));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
