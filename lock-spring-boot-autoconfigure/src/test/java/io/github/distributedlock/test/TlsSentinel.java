package io.github.distributedlock.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import org.awaitility.Awaitility;

/**
 * A TLS-only Redis Sentinel ({@code redis-server <config> --sentinel}, no plaintext port) on a free port that
 * monitors one {@link TlsRedisServer} as {@value SentinelProcess#MASTER}, reaching it over TLS, with the
 * certificates of {@link TestCertificates}; stopped by its process handle.
 */
public final class TlsSentinel implements AutoCloseable {

	private final int port;

	private final Process process;

	private TlsSentinel(int port, Process process) {
		this.port = port;
		this.process = process;
	}

	/**
	 * Starts a sentinel that monitors a primary (quorum 1), and waits until it answers PING over TLS.
	 * @param primary the primary to monitor
	 * @return the running sentinel; the caller closes it
	 * @throws IOException if its configuration file cannot be written or the process not started
	 */
	public static TlsSentinel start(TlsRedisServer primary) throws IOException {
		TestCertificates certificates = primary.certificates();
		int port;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(primary.host()))) {
			port = socket.getLocalPort();
		}
		Path dir = Files.createTempDirectory("sentinel-tls-" + port);
		// a sentinel rewrites its configuration file, so it must be one of its own
		Path config = Files.writeString(dir.resolve("sentinel.conf"), String.join("\n", "port 0", "tls-port " + port,
				"bind " + primary.host(), "dir " + dir, "tls-cert-file " + certificates.serverCertificate(),
				"tls-key-file " + certificates.serverKey(), "tls-ca-cert-file " + certificates.caCertificate(),
				"tls-auth-clients no", "tls-replication yes",
				"sentinel monitor " + SentinelProcess.MASTER + " " + primary.host() + " " + primary.port() + " 1",
				"sentinel down-after-milliseconds " + SentinelProcess.MASTER + " 5000", ""));
		Process process = new ProcessBuilder(RedisServer.executable(), config.toString(), "--sentinel")
			.redirectErrorStream(true)
			.redirectOutput(dir.resolve("sentinel.log").toFile())
			.start();
		TlsSentinel sentinel = new TlsSentinel(port, process);
		RedisClient client = RedisClient.create();
		client.setOptions(ClientOptions.builder()
			.sslOptions(SslOptions.builder().trustManager(certificates.caCertificate().toFile()).build())
			.build());
		try {
			RedisURI uri = RedisURI.builder()
				.withHost(primary.host())
				.withPort(port)
				.withSsl(true)
				.withTimeout(Duration.ofSeconds(2))
				.build();
			// up, and knows the primary: what a client asks it first
			Awaitility.await("TLS sentinel on port " + port)
				.atMost(Duration.ofSeconds(20))
				.pollInterval(Duration.ofMillis(100))
				.ignoreExceptions()
				.until(() -> {
					try (StatefulRedisConnection<String, String> connection = client.connect(uri)) {
						return connection.sync().ping().equals("PONG");
					}
				});
		}
		catch (RuntimeException ex) {
			sentinel.close();
			throw ex;
		}
		finally {
			client.shutdown();
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
