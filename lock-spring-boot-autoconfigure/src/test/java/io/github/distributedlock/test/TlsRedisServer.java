package io.github.distributedlock.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A TLS-only {@code redis-server} (no plaintext port), as managed Redis services run it, with the certificates
 * of {@link TestCertificates} and one ACL user besides {@code default}: {@link #USER} with password
 * {@link #PASSWORD} and the ACL rule the test gives. Clients are not asked for certificates. The tests' own
 * administration goes through {@link #admin()} as {@code default}, which may do everything.
 */
public final class TlsRedisServer implements AutoCloseable {

	/** The ACL user under test. */
	public static final String USER = "locks";

	/** Its password. */
	public static final String PASSWORD = "locks-secret";

	private static final String HOST = "127.0.0.1";

	private final int port;

	private final Process process;

	private final TestCertificates certificates;

	private @Nullable RedisClient adminClient;

	private @Nullable StatefulRedisConnection<String, String> admin;

	private TlsRedisServer(int port, Process process, TestCertificates certificates) {
		this.port = port;
		this.process = process;
		this.certificates = certificates;
	}

	/**
	 * Starts a server and waits until it accepts connections.
	 * @param userRule the ACL rule of {@link #USER}, such as {@code "~lock:* &lock:* +@all"} (without {@code on}
	 * and the password, which are added)
	 * @return the running server; the caller closes it
	 */
	public static TlsRedisServer start(String userRule) {
		RedisServer.assumeOnPath();
		TestCertificates certificates = TestCertificates.get();
		try {
			int port;
			try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
				port = socket.getLocalPort();
			}
			Path dir = Files.createTempDirectory("redis-tls-" + port);
			Files.writeString(dir.resolve("redis.conf"),
					"user default on nopass ~* &* +@all\nuser " + USER + " on >" + PASSWORD + " " + userRule + "\n");
			List<String> command = new ArrayList<>(List.of("redis-server", dir.resolve("redis.conf").toString(),
					"--port", "0", "--tls-port", Integer.toString(port), "--bind", HOST, "--save", "", "--appendonly",
					"no", "--dir", dir.toString(), "--tls-cert-file", certificates.serverCertificate().toString(),
					"--tls-key-file", certificates.serverKey().toString(), "--tls-ca-cert-file",
					certificates.caCertificate().toString(), "--tls-auth-clients", "no"));
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(dir.resolve("redis.log").toFile())
				.start();
			TlsRedisServer server = new TlsRedisServer(port, process, certificates);
			Awaitility.await("TLS redis-server on port " + port)
				.atMost(Duration.ofSeconds(20))
				.pollInterval(Duration.ofMillis(50))
				.ignoreExceptions()
				.until(() -> "PONG".equals(server.admin().ping()));
			return server;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start a TLS redis-server", ex);
		}
	}

	public String host() {
		return HOST;
	}

	public int port() {
		return this.port;
	}

	public TestCertificates certificates() {
		return this.certificates;
	}

	/**
	 * The Spring Boot properties of an application that connects to this server as {@link #USER} over TLS,
	 * trusting the test CA through an SSL bundle named {@code redis}.
	 * @param jks whether the bundle is a JKS/PKCS12 trust store ({@code spring.ssl.bundle.jks}) rather than a PEM
	 * certificate ({@code spring.ssl.bundle.pem})
	 * @return {@code key=value} pairs
	 */
	public String[] properties(boolean jks) {
		List<String> properties = new ArrayList<>(List.of("spring.data.redis.host=" + HOST,
				"spring.data.redis.port=" + this.port, "spring.data.redis.username=" + USER,
				"spring.data.redis.password=" + PASSWORD, "spring.data.redis.timeout=2s",
				"spring.data.redis.ssl.bundle=redis"));
		if (jks) {
			properties.add("spring.ssl.bundle.jks.redis.truststore.location=file:" + this.certificates.trustStore());
			properties.add("spring.ssl.bundle.jks.redis.truststore.password=" + TestCertificates.TRUST_STORE_PASSWORD);
			properties.add("spring.ssl.bundle.jks.redis.truststore.type=PKCS12");
		}
		else {
			properties.add("spring.ssl.bundle.pem.redis.truststore.certificate=file:" + this.certificates.caCertificate());
		}
		return properties.toArray(String[]::new);
	}

	/**
	 * Returns a runner of lock applications ({@link LockApplications}) that connect to this server as {@link #USER}
	 * over TLS (see {@link #properties(boolean)}), with Spring Boot's SSL bundles.
	 * @param client the Redis client library, {@code lettuce} or {@code jedis}
	 * @param jks whether the trust store is a JKS/PKCS12 bundle rather than a PEM one
	 * @return the runner
	 */
	public ApplicationContextRunner runner(String client, boolean jks) {
		return LockApplications.runner(properties(jks))
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client);
	}

	/**
	 * Returns the synchronous commands of one TLS connection as {@code default}, opened on first use and closed
	 * with the server: for the tests' administration ({@code ACL SETUSER}, {@code ACL LOG}...).
	 * @return the commands
	 */
	public synchronized RedisCommands<String, String> admin() {
		if (this.admin == null) {
			if (this.adminClient == null) {
				this.adminClient = RedisClient.create();
				this.adminClient.setOptions(ClientOptions.builder()
					.sslOptions(SslOptions.builder().trustManager(this.certificates.caCertificate().toFile()).build())
					.build());
			}
			RedisURI uri = RedisURI.builder().withHost(HOST).withPort(this.port).withSsl(true)
				.withTimeout(Duration.ofSeconds(5)).build();
			this.admin = this.adminClient.connect(uri);
		}
		return this.admin.sync();
	}

	/**
	 * Replaces the ACL rule of {@link #USER} ({@code ACL SETUSER locks reset on >password <rule>}); its open
	 * connections keep running as the new rule allows.
	 * @param rule the new rule, such as {@code "~lock:* +@all -@dangerous"}
	 */
	public void setUserRule(String rule) {
		CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("SETUSER")
			.add(USER)
			.add("reset")
			.add("on")
			.add(">" + PASSWORD);
		for (String part : rule.trim().split(" +")) {
			args.add(part);
		}
		String reply = admin().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args);
		if (!"OK".equals(reply)) {
			throw new IllegalStateException("ACL SETUSER " + USER + " " + rule + " answered " + reply);
		}
	}

	@Override
	public synchronized void close() {
		if (this.admin != null) {
			this.admin.close();
		}
		if (this.adminClient != null) {
			this.adminClient.shutdown();
		}
		this.process.destroyForcibly();
		try {
			this.process.waitFor();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
