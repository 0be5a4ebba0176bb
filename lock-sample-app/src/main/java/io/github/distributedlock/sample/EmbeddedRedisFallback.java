package io.github.distributedlock.sample;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Makes sure a Redis answers: the configured one ({@code --spring.data.redis.host/port}, or the
 * {@code SPRING_DATA_REDIS_HOST/PORT} environment, default localhost:6379), or else one it starts itself:
 * a {@code redis-server} from PATH, or the one bundled by the embedded-redis library. Closing it stops
 * what it started.
 */
final class EmbeddedRedisFallback implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(EmbeddedRedisFallback.class);

	private final String host;

	private final int port;

	private final Runnable stop;

	private EmbeddedRedisFallback(String host, int port, Runnable stop) {
		this.host = host;
		this.port = port;
		this.stop = stop;
	}

	static EmbeddedRedisFallback ensureRedis(String[] args) throws IOException {
		String host = setting(args, "spring.data.redis.host", "SPRING_DATA_REDIS_HOST", "localhost");
		int port = Integer.parseInt(setting(args, "spring.data.redis.port", "SPRING_DATA_REDIS_PORT", "6379"));
		if (answers(host, port)) {
			logger.info("Using the Redis at " + host + ":" + port);
			return new EmbeddedRedisFallback(host, port, null);
		}
		int freePort = freePort();
		boolean fromPath = onPath("redis-server");
		Runnable stop = fromPath ? startRedisServer(freePort) : startBundledRedis(freePort);
		logger.warn("No Redis answers at " + host + ":" + port + "; started an embedded Redis on 127.0.0.1:" + freePort
				+ " (" + (fromPath ? "redis-server from PATH" : "embedded-redis library") + ")");
		return new EmbeddedRedisFallback("127.0.0.1", freePort, stop);
	}

	/** The host of the Redis in use. */
	String host() {
		return this.host;
	}

	/** The port of the Redis in use. */
	int port() {
		return this.port;
	}

	/**
	 * Returns the arguments with the connection settings of the Redis in use in place of any given ones.
	 */
	String[] withConnectionArguments(String[] args) {
		List<String> all = new ArrayList<>(Arrays.asList(args));
		all.removeIf((arg) -> arg.startsWith("--spring.data.redis.host=") || arg.startsWith("--spring.data.redis.port="));
		all.add("--spring.data.redis.host=" + this.host);
		all.add("--spring.data.redis.port=" + this.port);
		return all.toArray(String[]::new);
	}

	@Override
	public void close() {
		if (this.stop != null) {
			this.stop.run();
		}
	}

	private static Runnable startRedisServer(int port) throws IOException {
		Path dir = Files.createTempDirectory("sample-redis");
		Process process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no", "--dir", dir.toString())
			.redirectErrorStream(true)
			.redirectOutput(dir.resolve("redis.log").toFile())
			.start();
		awaitAnswer(port);
		return () -> {
			process.destroy();
			try {
				process.waitFor(5, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		};
	}

	private static Runnable startBundledRedis(int port) throws IOException {
		redis.embedded.RedisServer server = redis.embedded.RedisServer.newRedisServer()
			.port(port)
			.bind("127.0.0.1")
			.setting("save \"\"")
			.setting("appendonly no")
			.build();
		server.start();
		awaitAnswer(port);
		return () -> {
			try {
				server.stop();
			}
			catch (IOException ex) {
				logger.warn("Could not stop the embedded Redis", ex);
			}
		};
	}

	private static void awaitAnswer(int port) throws IOException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!answers("127.0.0.1", port)) {
			if (System.nanoTime() > deadline) {
				throw new IOException("The embedded Redis did not start on port " + port);
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IOException("Interrupted while starting Redis", ex);
			}
		}
	}

	private static boolean answers(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 300);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static String setting(String[] args, String property, String environment, String fallback) {
		String prefix = "--" + property + "=";
		for (String arg : args) {
			if (arg.startsWith(prefix)) {
				return arg.substring(prefix.length());
			}
		}
		String fromProperty = System.getProperty(property);
		if (fromProperty != null) {
			return fromProperty;
		}
		String fromEnvironment = System.getenv(environment);
		return (fromEnvironment != null) ? fromEnvironment : fallback;
	}

	private static boolean onPath(String command) {
		String path = System.getenv("PATH");
		return path != null && Arrays.stream(path.split(File.pathSeparator))
			.anyMatch((dir) -> new File(dir, command).canExecute());
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
