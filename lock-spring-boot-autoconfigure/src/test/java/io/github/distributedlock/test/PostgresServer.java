package io.github.distributedlock.test;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL server a test started from the Debian package's binaries ({@code /usr/lib/postgresql/<version>/bin}),
 * in a temporary directory on a free loopback port, with trust authentication for user {@code postgres}, fsync off;
 * stopped (immediately) and deleted by {@link #close()}. PostgreSQL refuses to run as root: as root, its commands run
 * as the package's {@code postgres} user ({@code runuser}). Tests that need it are skipped where the package is missing.
 */
public final class PostgresServer implements AutoCloseable {

	private final Path bin;

	private final Path dir;

	private final int port;

	private PostgresServer(Path bin, Path dir, int port) {
		this.bin = bin;
		this.dir = dir;
		this.port = port;
	}

	/**
	 * Starts a server, waiting until it accepts connections.
	 * @return the running server
	 * @throws org.opentest4j.TestAbortedException if PostgreSQL is not installed
	 */
	public static PostgresServer start() {
		Path bin = binaries();
		Assumptions.assumeTrue(bin != null, "PostgreSQL (Debian package postgresql) in /usr/lib/postgresql");
		try {
			Path dir = Files.createTempDirectory("postgres-");
			int port = freePort();
			PostgresServer server = new PostgresServer(bin, dir, port);
			if (isRoot()) {
				run(List.of("chown", "postgres:postgres", dir.toString()));
			}
			server.asPostgres("initdb", "-D", dir.resolve("data").toString(), "-U", "postgres", "-A", "trust",
					"--no-sync", "-E", "UTF8");
			server.asPostgres("pg_ctl", "-D", dir.resolve("data").toString(), "-l", dir.resolve("log").toString(), "-w",
					"-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off", "start");
			return server;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start PostgreSQL", ex);
		}
	}

	/**
	 * Returns the JDBC URL of the {@code postgres} database.
	 * @return such as {@code jdbc:postgresql://127.0.0.1:5433/postgres}
	 */
	public String jdbcUrl() {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/postgres";
	}

	/**
	 * Stops the server without a checkpoint and deletes its directory.
	 */
	@Override
	public void close() {
		try {
			asPostgres("pg_ctl", "-D", this.dir.resolve("data").toString(), "-m", "immediate", "-w", "stop");
		}
		finally {
			try (Stream<Path> files = Files.walk(this.dir)) {
				files.sorted((a, b) -> b.compareTo(a)).forEach((file) -> file.toFile().delete());
			}
			catch (IOException ex) {
				// a temporary directory left behind
			}
		}
	}

	private void asPostgres(String command, String... args) {
		List<String> line = new ArrayList<>();
		if (isRoot()) {
			line.addAll(List.of("runuser", "-u", "postgres", "--"));
		}
		line.add(this.bin.resolve(command).toString());
		line.addAll(List.of(args));
		run(line);
	}

	private static void run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes());
			if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(String.join(" ", command) + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static Path binaries() {
		Path root = Path.of("/usr/lib/postgresql");
		if (!Files.isDirectory(root)) {
			return null;
		}
		try (Stream<Path> versions = Files.list(root)) {
			return versions.map((version) -> version.resolve("bin"))
				.filter((bin) -> Files.isExecutable(bin.resolve("initdb")) && Files.isExecutable(bin.resolve("pg_ctl")))
				.max(Path::compareTo)
				.orElse(null);
		}
		catch (IOException ex) {
			return null;
		}
	}

	private static boolean isRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
