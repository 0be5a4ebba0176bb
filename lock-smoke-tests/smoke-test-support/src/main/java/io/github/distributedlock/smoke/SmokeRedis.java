package io.github.distributedlock.smoke;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.awaitility.Awaitility;

/**
 * A {@code redis-server} process on a free port of 127.0.0.1 (never 6379), empty and without persistence, for one
 * test class; {@code REDIS_SERVER} names another server binary, as for the library's tests. The smoke tests need no
 * Redis client: {@link #get(String)} sends one inline command over a socket.
 * Not thread-safe for {@link #close()}; {@link #get(String)} opens a connection per call.
 */
public final class SmokeRedis implements AutoCloseable {

	/** The environment variable naming the server binary to run instead of {@code redis-server} from PATH. */
	public static final String SERVER_VARIABLE = "REDIS_SERVER";

	private static final String HOST = "127.0.0.1";

	private final Process process;

	private final int port;

	private SmokeRedis(Process process, int port) {
		this.process = process;
		this.port = port;
	}

	/**
	 * Starts a server and waits (at most 10 s) until it answers PING.
	 * @return the running server; the caller closes it
	 * @throws IllegalStateException if no server binary is found or it does not answer
	 */
	public static SmokeRedis start() {
		String executable = executable();
		try {
			int port = FreePort.next();
			Path dir = Files.createTempDirectory("smoke-redis-" + port);
			Process process = new ProcessBuilder(List.of(executable, "--port", Integer.toString(port), "--bind", HOST,
					"--save", "", "--appendonly", "no", "--protected-mode", "no", "--dir", dir.toString()))
				.redirectErrorStream(true)
				.redirectOutput(dir.resolve("redis.log").toFile())
				.start();
			SmokeRedis redis = new SmokeRedis(process, port);
			Awaitility.await(executable + " answering PING on port " + port)
				.atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(20))
				.until(redis::answersPing);
			return redis;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start " + executable, ex);
		}
	}

	/**
	 * Returns the port the server listens on.
	 * @return its TCP port on 127.0.0.1
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Reads a string value.
	 * @param key the Redis key
	 * @return its value, or {@code null} if the key does not exist
	 * @throws IllegalStateException if the server cannot be reached or answers an error
	 */
	public String get(String key) {
		try {
			return command("GET " + key);
		}
		catch (IOException ex) {
			throw new IllegalStateException("GET " + key + " on port " + this.port + " failed", ex);
		}
	}

	private boolean answersPing() {
		try {
			return "PONG".equals(command("PING"));
		}
		catch (IOException ex) {
			return false;   // not listening yet
		}
	}

	/** Sends one inline command, returns a simple or bulk string reply ({@code null} for a nil one). */
	private String command(String command) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(HOST, this.port), 500);
			socket.setSoTimeout(2000);
			OutputStream out = socket.getOutputStream();
			out.write((command + "\r\n").getBytes(StandardCharsets.UTF_8));
			out.flush();
			InputStream in = socket.getInputStream();
			String header = readLine(in);
			if (header.startsWith("+")) {
				return header.substring(1);
			}
			if (header.startsWith("$")) {
				int length = Integer.parseInt(header.substring(1));
				return (length < 0) ? null : readLine(in);
			}
			throw new IllegalStateException(command + " answered " + header);
		}
	}

	private static String readLine(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		int c;
		while ((c = in.read()) != -1 && c != '\n') {
			if (c != '\r') {
				line.append((char) c);
			}
		}
		return line.toString();
	}

	/** Stops the server (SIGKILL: it keeps nothing) and waits for its end. */
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

	private static String executable() {
		String named = System.getenv(SERVER_VARIABLE);
		if (named != null && !named.isBlank()) {
			if (!new File(named).canExecute()) {
				throw new IllegalStateException(SERVER_VARIABLE + "=" + named + " is not an executable file");
			}
			return named;
		}
		String path = System.getenv("PATH");
		for (String dir : (path != null) ? path.split(File.pathSeparator) : new String[0]) {
			File candidate = new File(dir, "redis-server");
			if (candidate.canExecute()) {
				return candidate.getPath();
			}
		}
		throw new IllegalStateException("The smoke tests need redis-server on PATH (Debian package redis-server) or "
				+ SERVER_VARIABLE + " naming a server binary");
	}

}
