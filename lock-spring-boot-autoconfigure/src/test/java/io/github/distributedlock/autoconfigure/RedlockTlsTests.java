package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.test.RedlockApplications;
import io.github.distributedlock.test.TlsRedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The Redlock store over TLS: 3 TLS-only {@code redis-server} processes whose certificate a private test CA
 * signed, listed as {@code rediss://user:password@host:port} nodes and trusted through the Spring Boot SSL bundle
 * named by {@code distributed-lock.redlock.ssl-bundle}. With the bundle a lock is held on all three nodes with a
 * fencing token and released from all three; with its private key and certificate as key material, a node that
 * demands client certificates lets the client in. Without the bundle the JVM's default trust store refuses the
 * nodes' certificate, so no node votes; an unknown bundle name fails the startup naming the property.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockTlsTests {

	private static final String BUNDLE = "redlock-nodes";

	private static final List<TlsRedisServer> servers = new ArrayList<>();

	@BeforeAll
	static void start() {
		for (int i = 0; i < 3; i++) {
			servers.add(TlsRedisServer.start("~* &* +@all"));
		}
	}

	@AfterAll
	static void stop() {
		servers.forEach(TlsRedisServer::close);
	}

	private static ApplicationContextRunner runner(String... more) {
		String[] nodes = servers.stream()
			.map((server) -> "rediss://" + TlsRedisServer.USER + ":" + TlsRedisServer.PASSWORD + "@" + server.host()
					+ ":" + server.port())
			.toArray(String[]::new);
		return RedlockApplications.runner("2s", nodes, SslAutoConfiguration.class).withPropertyValues(more);
	}

	private static String trustingTheTestCa() {
		return "spring.ssl.bundle.pem." + BUNDLE + ".truststore.certificate=file:"
				+ servers.get(0).certificates().caCertificate();
	}

	private static LockDefinition lock(Duration acquireTimeout) {
		return LockDefinition.builder("tls:" + UUID.randomUUID())
			.lease(Duration.ofSeconds(30))
			.acquireTimeout(acquireTimeout)
			.build();
	}

	@Test
	void withTheBundleALockIsHeldAndReleasedOnAllThreeNodesWithAFencingToken() {
		runner(trustingTheTestCa(), "distributed-lock.redlock.ssl-bundle=" + BUNDLE).run((context) -> {
			assertThat(context).hasNotFailed();
			DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
			LockDefinition definition = lock(Duration.ofSeconds(5));
			String redisKey = context.getBean(DistributedLockProperties.class).getKeyPrefix() + definition.key();
			// a round completes once a quorum answered: the third node's vote and release may come a little later
			long first = template.execute(definition, () -> {
				await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
					for (TlsRedisServer server : servers) {
						assertThat(server.admin().exists(redisKey)).as("the lock on node " + server.port())
							.isEqualTo(1);
					}
				});
				return LockContext.current().fencingToken();
			});
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
				for (TlsRedisServer server : servers) {
					assertThat(server.admin().exists(redisKey)).as("the lock on node " + server.port()).isZero();
				}
			});
			long second = template.execute(definition, () -> LockContext.current().fencingToken());
			assertThat(first).isPositive();
			assertThat(second).isGreaterThan(first);
		});
	}

	@Test
	void withoutTheBundleTheDefaultTrustStoreRefusesTheNodesCertificate(CapturedOutput output) {
		runner(trustingTheTestCa()).run((context) -> {
			assertThat(context).hasNotFailed();
			DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
			assertThatThrownBy(() -> template.execute(lock(Duration.ofMillis(300)), () -> "held"))
				.isInstanceOf(DistributedLockException.class)
				.hasMessageContaining("only 0 of 3 Redlock nodes answered");
		});
		// the startup check says why, per node
		for (TlsRedisServer server : servers) {
			assertThat(output).containsPattern("Redlock node 127\\.0\\.0\\.1:" + server.port()
					+ " cannot be reached at startup \\(.*(PKIX path building failed|certification path)");
		}
	}

	@Test
	void anUnknownBundleFailsTheStartupNamingTheProperty() {
		runner(trustingTheTestCa(), "distributed-lock.redlock.ssl-bundle=no-such-bundle").run((context) -> {
			assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidLockPropertyException.class)
				.hasMessageContaining("no-such-bundle")
				.hasMessageContaining(BUNDLE);
			FailureAnalysis analysis = new LockPropertyFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("Property: distributed-lock.redlock.ssl-bundle")
				.contains("Value: \"no-such-bundle\"");
			assertThat(analysis.getAction()).contains("spring.ssl.bundle.pem.no-such-bundle");
		});
	}

	@Test
	void aBundleWithAKeyAndCertificateLetsTheClientIntoNodesThatDemandClientCertificates() {
		servers.forEach((server) -> server.admin().configSet("tls-auth-clients", "yes"));
		try {
			// the server's certificate, signed by the test CA for any use, serves as the client's too
			String keystore = "spring.ssl.bundle.pem." + BUNDLE + ".keystore.";
			runner(trustingTheTestCa(), "distributed-lock.redlock.ssl-bundle=" + BUNDLE,
					keystore + "certificate=file:" + servers.get(0).certificates().serverCertificate(),
					keystore + "private-key=file:" + servers.get(0).certificates().serverKey())
				.run((context) -> {
					assertThat(context).hasNotFailed();
					DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
					assertThat(template.execute(lock(Duration.ofSeconds(5)), () -> LockContext.current().fencingToken())).isPositive();
				});
			// the same bundle without the key material: the nodes close the handshake
			runner(trustingTheTestCa(), "distributed-lock.redlock.ssl-bundle=" + BUNDLE).run((context) -> {
				assertThat(context).hasNotFailed();
				DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
				assertThatThrownBy(() -> template.execute(lock(Duration.ofMillis(300)), () -> "held"))
					.isInstanceOf(DistributedLockException.class)
					.hasMessageContaining("only 0 of 3 Redlock nodes answered");
			});
		}
		finally {
			servers.forEach((server) -> server.admin().configSet("tls-auth-clients", "no"));
		}
	}

}
