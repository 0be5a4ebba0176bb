package io.github.distributedlock.autoconfigure;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.redis.RedisAccessProbe;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Connections that never work: TLS against a plaintext port, a server that accepts connections and never answers,
 * a port nobody listens on. The startup does not wait for them (beyond the permission check's one command
 * timeout), no acquisition blocks longer than its acquire timeout plus one command timeout, and the error says
 * that nothing ran (no warning about a claim "Redis may still run").
 */
@ExtendWith(OutputCaptureExtension.class)
class MisconfiguredConnectionTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(1);

	/** What the loaded machine may add to a bound. */
	private static final Duration MARGIN = Duration.ofSeconds(2);

	@BeforeAll
	static void loadTheClasses() {
		// the first application of a JVM loads thousands of classes: that is not what the startup bound is about
		runner("lettuce", SharedRedis.server().port()).run((context) -> assertThat(context).hasNotFailed());
		runner("jedis", SharedRedis.server().port()).run((context) -> assertThat(context).hasNotFailed());
	}

	private static ApplicationContextRunner runner(String client, int port, String... properties) {
		return LockApplications
			.runner("spring.data.redis.client-type=" + client, "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + port, "spring.data.redis.timeout=" + COMMAND_TIMEOUT.toMillis() + "ms")
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
			.withPropertyValues(properties);
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void tlsAgainstAPlaintextPortIsBounded(String client) {
		assertBounded(runner(client, SharedRedis.server().port(), "spring.data.redis.ssl.enabled=true"));
	}

	/**
	 * With Spring Boot's default timeouts (a command timeout of a minute, Lettuce's connect timeout of 10 s), as
	 * in the issue: a call took three handshake timeouts (30 s), the startup waited for the subscription's.
	 */
	@Test
	void tlsAgainstAPlaintextPortWithBootsDefaultTimeoutsTakesOneHandshakeTimeoutAtMost() {
		Duration handshakeTimeout = Duration.ofSeconds(10);
		ApplicationContextRunner runner = LockApplications
			.runner("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + SharedRedis.server().port(),
					"spring.data.redis.ssl.enabled=true")
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class));
		long starting = System.nanoTime();
		runner.run((context) -> {
			Duration startup = Duration.ofNanos(System.nanoTime() - starting);
			assertThat(context).hasNotFailed();
			// the permission check gives up after RedisAccessProbe.MAX_WAIT; the subscription is not waited for
			assertThat(startup).as("startup").isLessThan(RedisAccessProbe.MAX_WAIT.plus(MARGIN).plus(MARGIN));
			long calling = System.nanoTime();
			DistributedLockException failure = catchThrowableOfType(DistributedLockException.class,
					() -> LockApplications.template(context).execute(definition(), () -> "ran"));
			Duration took = Duration.ofNanos(System.nanoTime() - calling);
			assertThat(failure).isNotNull();
			assertThat(took).as(failure.getMessage()).isLessThan(handshakeTimeout.plus(ACQUIRE_TIMEOUT).plus(MARGIN));
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void aServerThatNeverAnswersIsBounded(String client) throws IOException {
		try (SilentServer silent = new SilentServer()) {
			assertBounded(runner(client, silent.port()));
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void aConnectionNeverMadeRanNothingAndNoWithdrawalIsWarnedOf(String client, CapturedOutput output)
			throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			closedPort = socket.getLocalPort();
		}
		LockDefinition definition = definition();
		runner(client, closedPort).run((context) -> {
			assertThat(context).hasNotFailed();
			DistributedLockException failure = catchThrowableOfType(DistributedLockException.class,
					() -> LockApplications.template(context).execute(definition, () -> "ran"));
			assertThat(failure).hasMessageContaining("no connection to Redis, nothing ran");
		});
		assertThat(output).doesNotContain("Could not withdraw the waiting claim on lock '" + definition.key() + "'");
	}

	private static void assertBounded(ApplicationContextRunner runner) {
		long starting = System.nanoTime();
		runner.run((context) -> {
			Duration startup = Duration.ofNanos(System.nanoTime() - starting);
			assertThat(context).hasNotFailed();
			// the permission check may wait one command timeout; the subscription is not waited for
			assertThat(startup).as("startup").isLessThan(COMMAND_TIMEOUT.plus(MARGIN).plus(MARGIN));
			for (int call = 0; call < 2; call++) {
				long calling = System.nanoTime();
				DistributedLockException failure = catchThrowableOfType(DistributedLockException.class,
						() -> LockApplications.template(context).execute(definition(), () -> "ran"));
				Duration took = Duration.ofNanos(System.nanoTime() - calling);
				assertThat(failure).as("call " + call).isNotNull();
				assertThat(took).as("call " + call + " (" + failure.getMessage() + ")")
					.isLessThan(ACQUIRE_TIMEOUT.plus(COMMAND_TIMEOUT).plus(MARGIN));
			}
		});
	}

	private static LockDefinition definition() {
		return LockDefinition.builder("misconfigured:" + UUID.randomUUID()).acquireTimeout(ACQUIRE_TIMEOUT).build();
	}

	/** Accepts connections and never answers, never closes them: as a stalled proxy or a firewall that eats replies. */
	private static final class SilentServer implements AutoCloseable {

		private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());

		private final List<Socket> accepted = new CopyOnWriteArrayList<>();

		private final Thread acceptor = new Thread(this::accept, "silent-server");

		SilentServer() throws IOException {
			this.acceptor.setDaemon(true);
			this.acceptor.start();
		}

		int port() {
			return this.socket.getLocalPort();
		}

		private void accept() {
			try {
				while (!this.socket.isClosed()) {
					this.accepted.add(this.socket.accept());
				}
			}
			catch (IOException ex) {
				// closed
			}
		}

		@Override
		public void close() throws IOException {
			this.socket.close();
			for (Socket connection : this.accepted) {
				connection.close();
			}
		}

	}

}
