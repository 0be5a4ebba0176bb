package io.github.distributedlock.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The {@code redis-server} binary the tests run, and the plumbing of its processes: finding it (the environment
 * variable {@value #SERVER_VARIABLE}, else PATH), a free port, launching it, and waiting for its PING.
 * {@link RedisServer} and {@link SentinelProcess} start their processes with it. Stateless.
 */
final class RedisBinary {

	static final String HOST = "127.0.0.1";

	/** The configuration file a process reads first, in its own directory, when one was written there. */
	static final String CONFIG_FILE = "redis.conf";

	/** The environment variable with the path of the server binary to run instead of {@code redis-server}. */
	static final String SERVER_VARIABLE = "REDIS_SERVER";

	private RedisBinary() {
	}

	/**
	 * Starts {@code redis-server} on a port, in a directory of its own (its log goes to {@code redis.log} there).
	 * @param port the port, on {@link #HOST}
	 * @param extraArgs further {@code redis-server} arguments
	 * @param environment variables of the process beyond the JVM's
	 * @param dir its directory: its data, its log, and the {@value #CONFIG_FILE} it reads first if one is there
	 * @return the process, not yet answering
	 * @throws IOException if it could not be started
	 */
	static Process launch(int port, List<String> extraArgs, Map<String, String> environment, Path dir)
			throws IOException {
		List<String> command = new ArrayList<>(List.of(Objects.requireNonNull(executable())));
		// the configuration file comes first; a Sentinel rewrites it, and a restart reads what it wrote
		if (Files.exists(dir.resolve(CONFIG_FILE))) {
			command.add(dir.resolve(CONFIG_FILE).toString());
		}
		command.addAll(List.of("--port", Integer.toString(port), "--bind",
				HOST, "--save", "", "--appendonly", "no", "--protected-mode", "no", "--dir", dir.toString()));
		command.addAll(extraArgs);
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(dir.resolve("redis.log").toFile());
		builder.environment().putAll(environment);
		return builder.start();
	}

	/**
	 * Returns the server binary the tests run: the one {@value #SERVER_VARIABLE} names, else {@code redis-server}
	 * from PATH.
	 * @return its path, or {@code null} if none is on PATH and the variable is not set
	 * @throws IllegalStateException if the variable names a file that is not an executable
	 */
	static @Nullable String executable() {
		String named = System.getenv(SERVER_VARIABLE);
		if (named == null || named.isBlank()) {
			return onPath("redis-server");
		}
		if (!new File(named).canExecute()) {
			throw new IllegalStateException(SERVER_VARIABLE + "=" + named + " is not an executable file");
		}
		return named;
	}

	/**
	 * Finds an executable on PATH.
	 * @param executable its name
	 * @return its path, or {@code null} if none is on PATH
	 */
	static @Nullable String onPath(String executable) {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String dir : path.split(File.pathSeparator)) {
			File candidate = new File(dir, executable);
			if (candidate.canExecute()) {
				return candidate.getPath();
			}
		}
		return null;
	}

	/**
	 * A port free on {@link #HOST} now.
	 * @return the port
	 * @throws IOException if none could be bound
	 */
	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
			return socket.getLocalPort();
		}
	}

	/**
	 * Sends PING until the server answers PONG.
	 * @param port the server's port on {@link #HOST}
	 * @param timeout how long to try
	 * @return {@code true} once it answered, {@code false} if it did not in time
	 */
	static boolean awaitPing(int port, Duration timeout) {
		try {
			Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(20)).until(() -> ping(port));
			return true;
		}
		catch (ConditionTimeoutException ex) {
			return false;
		}
	}

	private static boolean ping(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(HOST, port), 200);
			socket.setSoTimeout(500);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] reply = new byte[7];
			int read = in.read(reply);
			return read > 0 && new String(reply, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
		}
		catch (IOException ex) {
			return false;
		}
	}

}
