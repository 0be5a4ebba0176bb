package io.github.distributedlock.test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import org.awaitility.Awaitility;

/**
 * Starts a TLS-only Redis Sentinel (a {@link SentinelProcess} without a plaintext port) that monitors one
 * {@link TlsRedisServer} as {@value SentinelProcess#MASTER}, reaching it over TLS, with the certificates of
 * {@link TestCertificates}.
 */
public final class TlsSentinel {

	private TlsSentinel() {
	}

	/**
	 * Starts a sentinel that monitors a primary (quorum 1), and waits until it answers PING over TLS.
	 * @param primary the primary to monitor
	 * @return the running sentinel; the caller closes it
	 * @throws IOException if its configuration file cannot be written or the process not started
	 */
	public static SentinelProcess start(TlsRedisServer primary) throws IOException {
		TestCertificates certificates = primary.certificates();
		int port = SentinelProcess.freePort(primary.host());
		SentinelProcess sentinel = SentinelProcess.launch(port,
				List.of("port 0", "tls-port " + port, "bind " + primary.host(),
						"tls-cert-file " + certificates.serverCertificate(), "tls-key-file " + certificates.serverKey(),
						"tls-ca-cert-file " + certificates.caCertificate(), "tls-auth-clients no", "tls-replication yes"),
				primary.host(), primary.port());
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

}
