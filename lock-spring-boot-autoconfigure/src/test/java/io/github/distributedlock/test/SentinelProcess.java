package io.github.distributedlock.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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
		int port = freePort("127.0.0.1");
		SentinelProcess sentinel = launch(port, List.of("port " + port, "bind 127.0.0.1"), primary.host(),
				primary.port());
		if (!RedisBinary.awaitPing(port, Duration.ofSeconds(10))) {
			sentinel.close();
			throw new IllegalStateException("redis-server --sentinel did not start on port " + port);
		}
		return sentinel;
	}

	static int freePort(String host) throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host))) {
			return socket.getLocalPort();
		}
	}

	/**
	 * Starts a sentinel process that monitors a primary (quorum 1), without waiting for it.
	 * @param port the port it listens on (for the name of its directory)
	 * @param listening its configuration lines that say where and how it listens ({@code port}, {@code tls-*}...)
	 * @param primaryHost the primary's host
	 * @param primaryPort the primary's port
	 * @return the started sentinel
	 * @throws IOException if its configuration file cannot be written or the process not started
	 */
	static SentinelProcess launch(int port, List<String> listening, String primaryHost, int primaryPort)
			throws IOException {
		Path dir = Files.createTempDirectory("sentinel-" + port);
		List<String> config = new ArrayList<>(listening);
		config.addAll(List.of("dir " + dir, "sentinel monitor " + MASTER + " " + primaryHost + " " + primaryPort + " 1",
				"sentinel down-after-milliseconds " + MASTER + " 5000", ""));
		// a sentinel rewrites its configuration file, so it must be one of its own
		Path file = Files.writeString(dir.resolve("sentinel.conf"), String.join("\n", config));
		Process process = new ProcessBuilder(RedisBinary.executable(), file.toString(), "--sentinel").redirectErrorStream(true)
			.redirectOutput(dir.resolve("sentinel.log").toFile())
			.start();
		return new SentinelProcess(port, process);
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
