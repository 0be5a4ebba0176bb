package io.github.distributedlock.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A real Redis for tests: a {@code redis-server} process on a free port when one is on PATH (which also
 * lets tests kill and restart it), otherwise a Testcontainers container when Docker is available. The
 * environment variable {@value #SERVER_VARIABLE} names another server binary to run instead of the one on PATH
 * (another Redis version, or Valkey); {@code .ci/run} runs a subset of the tests so on the oldest servers it
 * supports.
 */
public final class RedisServer implements AutoCloseable {

	private static final String HOST = RedisBinary.HOST;

	private static final String CONFIG_FILE = RedisBinary.CONFIG_FILE;

	/** The environment variable with the path of the server binary to run instead of {@code redis-server}. */
	public static final String SERVER_VARIABLE = RedisBinary.SERVER_VARIABLE;

	private static @Nullable RedisClient adminClient;

	private final int port;

	private final List<String> extraArgs;

	/** Environment variables of the process beyond the JVM's, kept for a restart. */
	private final Map<String, String> environment;

	private final Path dir;

	private Process process;

	private final GenericContainer<?> container;

	private @Nullable StatefulRedisConnection<String, String> admin;

	private RedisServer(int port, List<String> extraArgs, Map<String, String> environment, Process process, Path dir) {
		this.port = port;
		this.extraArgs = extraArgs;
		this.environment = environment;
		this.process = process;
		this.dir = dir;
		this.container = null;
	}

	private RedisServer(GenericContainer<?> container) {
		this.port = container.getMappedPort(6379);
		this.extraArgs = List.of();
		this.environment = Map.of();
		this.dir = null;
		this.container = container;
	}

	/**
	 * Starts a Redis server, waiting until it answers PING.
	 * @param extraArgs further {@code redis-server} arguments, such as {@code "--cluster-enabled", "yes"}
	 * @return the running server
	 */
	public static RedisServer start(String... extraArgs) {
		return start(null, Map.of(), extraArgs);
	}

	/**
	 * Starts a {@code redis-server} process with further environment variables, waiting until it answers PING;
	 * a restart keeps them. {@link FakeClock} starts a server whose clock a test moves so. Needs
	 * {@code redis-server} on PATH.
	 * @param environment the variables, added to the JVM's
	 * @param extraArgs further {@code redis-server} arguments
	 * @return the running server
	 * @throws org.opentest4j.TestAbortedException if no {@code redis-server} is on PATH
	 */
	public static RedisServer startWithEnvironment(Map<String, String> environment, String... extraArgs) {
		assumeOnPath();
		return start(null, Map.copyOf(environment), extraArgs);
	}

	/**
	 * Starts a {@code redis-server} process from a configuration file, waiting until it answers PING; a
	 * Sentinel, for instance, needs one it can rewrite. Needs {@code redis-server} on PATH.
	 * @param config the lines of the configuration file, written to the server's own directory
	 * @param extraArgs further {@code redis-server} arguments, such as {@code "--sentinel"}
	 * @return the running server
	 * @throws org.opentest4j.TestAbortedException if no {@code redis-server} is on PATH
	 */
	public static RedisServer startWithConfig(String config, String... extraArgs) {
		assumeOnPath();
		return start(config, Map.of(), extraArgs);
	}

	/**
	 * Skips the calling test unless {@code redis-server} and {@code redis-cli} are on PATH: killing,
	 * freezing and clustering processes needs them.
	 * @throws org.opentest4j.TestAbortedException if either is missing
	 */
	public static void assumeOnPath() {
		Assumptions.assumeTrue(RedisBinary.executable() != null && RedisBinary.onPath("redis-cli") != null,
				"redis-server and redis-cli (Debian package redis-server) on PATH");
	}

	private static RedisServer start(@Nullable String config, Map<String, String> environment, String... extraArgs) {
		if (RedisBinary.executable() != null) {
			IOException last = null;
			for (int attempt = 0; attempt < 5; attempt++) {
				try {
					int port = RedisBinary.freePort();
					Path dir = Files.createTempDirectory("redis-" + port);
					if (config != null) {
						Files.writeString(dir.resolve(CONFIG_FILE), config);
					}
					Process process = RedisBinary.launch(port, List.of(extraArgs), environment, dir);
					if (RedisBinary.awaitPing(port, Duration.ofSeconds(10))) {
						return new RedisServer(port, List.of(extraArgs), environment, process, dir);
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
		return RedisClientLibrary.lettuce(host(), this.port);
	}

	/**
	 * Kills the server with SIGKILL, as a crash would.
	 */
	public void kill() {
		requireProcess();
		closeAdmin();
		this.process.destroyForcibly();
		try {
			this.process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Tells whether the server process runs (it may be frozen).
	 * @return {@code false} once killed and not restarted
	 */
	public boolean isAlive() {
		return this.process != null && this.process.isAlive();
	}

	/**
	 * Freezes the server with SIGSTOP: connections stay open, nothing is answered, as in a long stall.
	 * {@link #resume()} lets it go on.
	 */
	public void freeze() {
		signal("STOP");
	}

	/**
	 * Lets a {@linkplain #freeze() frozen} server go on (SIGCONT).
	 */
	public void resume() {
		signal("CONT");
	}

	private void signal(String signal) {
		requireProcess();
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(this.process.pid())).start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + this.process.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Returns the synchronous Lettuce commands of one connection to this server, opened on first use and
	 * closed with the server: for the tests' own administration (CLIENT KILL, INFO, CLUSTER ...), never for
	 * the locks under test. The connection reconnects after a restart; its command timeout is 5 s.
	 * @return the commands; share them between threads only with care (one connection)
	 */
	public synchronized RedisCommands<String, String> admin() {
		if (this.admin == null) {
			RedisURI uri = RedisURI.create(host(), this.port);
			uri.setTimeout(Duration.ofSeconds(5));
			this.admin = adminClient().connect(uri);
		}
		return this.admin.sync();
	}

	/**
	 * Waits until the TTL of a key on this server grows between two looks 100 ms apart: only a renewal of
	 * the lease does that.
	 * @param redisKey the key
	 * @param atMost how long to wait; more than the renewal period of the lease
	 * @throws org.awaitility.core.ConditionTimeoutException if the TTL did not grow in time
	 */
	public void awaitRenewal(String redisKey, Duration atMost) {
		long[] last = { admin().pttl(redisKey) };
		Awaitility.await("a renewal of " + redisKey + " on port " + this.port)
			.atMost(atMost)
			.pollInterval(Duration.ofMillis(100))
			.until(() -> {
				long ttl = admin().pttl(redisKey);
				boolean grew = ttl > last[0] + 50;
				last[0] = ttl;
				return grew;
			});
	}

	/**
	 * Runs {@code redis-cli} against this server, such as {@code --cluster create}.
	 * @param args the arguments after {@code -h host -p port}
	 * @return what it printed
	 * @throws IllegalStateException if it failed or took longer than a minute
	 */
	public String cli(String... args) {
		List<String> command = new ArrayList<>(List.of("redis-cli", "-h", host(), "-p", Integer.toString(this.port)));
		command.addAll(List.of(args));
		try {
			Process cli = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!cli.waitFor(60, TimeUnit.SECONDS) || cli.exitValue() != 0) {
				throw new IllegalStateException(command + " failed: " + output);
			}
			return output;
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private synchronized void closeAdmin() {
		if (this.admin != null) {
			this.admin.close();
			this.admin = null;
		}
	}

	/** One Lettuce client (event loops) for every server's admin connection, closed when the JVM exits. */
	private static synchronized RedisClient adminClient() {
		if (adminClient == null) {
			adminClient = RedisClient.create();
			RedisClient client = adminClient;
			Runtime.getRuntime().addShutdownHook(new Thread(client::shutdown));
		}
		return adminClient;
	}

	/**
	 * Starts the server again on the same port, empty.
	 */
	public void restart() {
		requireProcess();
		try {
			this.process = RedisBinary.launch(this.port, this.extraArgs, this.environment, this.dir);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		if (!RedisBinary.awaitPing(this.port, Duration.ofSeconds(10))) {
			throw new IllegalStateException("redis-server did not restart on port " + this.port);
		}
	}

	@Override
	public void close() {
		closeAdmin();
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

}
