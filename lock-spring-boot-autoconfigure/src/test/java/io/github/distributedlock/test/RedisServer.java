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

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A real Redis for tests: a {@code redis-server} process on a free port when one is on PATH (which also
 * lets tests kill and restart it), otherwise a Testcontainers container when Docker is available.
 */
public final class RedisServer implements AutoCloseable {

	private static final String HOST = "127.0.0.1";

	private final int port;

	private final List<String> extraArgs;

	private final Path dir;

	private Process process;

	private final GenericContainer<?> container;

	private RedisServer(int port, List<String> extraArgs, Process process, Path dir) {
		this.port = port;
		this.extraArgs = extraArgs;
		this.process = process;
		this.dir = dir;
		this.container = null;
	}

	private RedisServer(GenericContainer<?> container) {
		this.port = container.getMappedPort(6379);
		this.extraArgs = List.of();
		this.dir = null;
		this.container = container;
	}

	/**
	 * Starts a Redis server, waiting until it answers PING.
	 * @param extraArgs further {@code redis-server} arguments, such as {@code "--cluster-enabled", "yes"}
	 * @return the running server
	 */
	public static RedisServer start(String... extraArgs) {
		if (redisServerOnPath() != null) {
			IOException last = null;
			for (int attempt = 0; attempt < 5; attempt++) {
				try {
					int port = freePort();
					Path dir = Files.createTempDirectory("redis-" + port);
					Process process = launch(port, List.of(extraArgs), dir);
					if (awaitPing(port, Duration.ofSeconds(10))) {
						return new RedisServer(port, List.of(extraArgs), process, dir);
					}
					process.destroyForcibly();
				}
				catch (IOException ex) {
					last = ex;
				}
			}
			throw new IllegalStateException("Could not start redis-server", last);
		}
		if (DockerClientFactory.instance().isDockerAvailable()) {
			GenericContainer<?> container = new GenericContainer<>("redis:7-alpine").withExposedPorts(6379);
			container.start();
			return new RedisServer(container);
		}
		throw new IllegalStateException("Tests need Redis: install redis-server (e.g. apt-get install redis-server) "
				+ "or make Docker available for Testcontainers");
	}

	public String host() {
		return (this.container != null) ? this.container.getHost() : HOST;
	}

	public int port() {
		return this.port;
	}

	/**
	 * Creates a started Lettuce connection factory on this server, with a short command timeout.
	 * @return the factory; the caller destroys it
	 */
	public LettuceConnectionFactory connectionFactory() {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(2))
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(host(), this.port), client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Kills the server with SIGKILL, as a crash would.
	 */
	public void kill() {
		requireProcess();
		this.process.destroyForcibly();
		try {
			this.process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Starts the server again on the same port, empty.
	 */
	public void restart() {
		requireProcess();
		try {
			this.process = launch(this.port, this.extraArgs, this.dir);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		if (!awaitPing(this.port, Duration.ofSeconds(10))) {
			throw new IllegalStateException("redis-server did not restart on port " + this.port);
		}
	}

	@Override
	public void close() {
		if (this.container != null) {
			this.container.stop();
		}
		else if (this.process != null) {
			kill();
		}
	}

	private void requireProcess() {
		if (this.process == null) {
			throw new IllegalStateException("Killing and restarting need a redis-server on PATH");
		}
	}

	private static Process launch(int port, List<String> extraArgs, Path dir) throws IOException {
		List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind",
				HOST, "--save", "", "--appendonly", "no", "--protected-mode", "no", "--dir", dir.toString()));
		command.addAll(extraArgs);
		return new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(dir.resolve("redis.log").toFile())
			.start();
	}

	private static String redisServerOnPath() {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String dir : path.split(File.pathSeparator)) {
			File candidate = new File(dir, "redis-server");
			if (candidate.canExecute()) {
				return candidate.getPath();
			}
		}
		return null;
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
			return socket.getLocalPort();
		}
	}

	/**
	 * Sends PING until the server answers PONG.
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
