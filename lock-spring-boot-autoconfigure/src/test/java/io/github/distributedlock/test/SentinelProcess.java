package io.github.distributedlock.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A Redis Sentinel ({@code redis-server <config> --sentinel}) on a free port that monitors one primary as
 * {@code mymaster}; stopped by its process handle.
 */
public final class SentinelProcess implements AutoCloseable {

	/** The name the sentinel knows the primary by. */
	public static final String MASTER = "mymaster";

	private final int port;

	private final Process process;

	private SentinelProcess(int port, Process process) {
		this.port = port;
		this.process = process;
	}

	/**
	 * Starts a sentinel that monitors a primary (quorum 1), and waits until it answers PING.
	 * @param primary the primary to monitor
	 * @return the running sentinel
	 * @throws IOException if its configuration file cannot be written or the process not started
	 */
	public static SentinelProcess start(RedisServer primary) throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
			port = socket.getLocalPort();
		}
		Path dir = Files.createTempDirectory("sentinel-" + port);
		// a sentinel rewrites its configuration file, so it must be one of its own
		Path config = Files.writeString(dir.resolve("sentinel.conf"), String.join("\n", "port " + port,
				"bind 127.0.0.1", "dir " + dir, "sentinel monitor " + MASTER + " " + primary.host() + " " + primary.port() + " 1",
				"sentinel down-after-milliseconds " + MASTER + " 5000", ""));
		Process process = new ProcessBuilder(RedisServer.executable(), config.toString(), "--sentinel").redirectErrorStream(true)
			.redirectOutput(dir.resolve("sentinel.log").toFile())
			.start();
		SentinelProcess sentinel = new SentinelProcess(port, process);
		if (!RedisServer.awaitPing(port, Duration.ofSeconds(10))) {
			sentinel.close();
			throw new IllegalStateException("redis-server --sentinel did not start on port " + port);
		}
		return sentinel;
	}

	public int port() {
		return this.port;
	}

	@Override
	public void close() {
		this.process.destroyForcibly();
		try {
			this.process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
