package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.redis.MissingRedisPermissionException;
import io.github.distributedlock.redis.RedisPermissions;
import io.github.distributedlock.test.StartupFailures;
import io.github.distributedlock.test.TlsRedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The startup check of the Redis user's permissions, on a TLS-only server: a user that lacks a permission the
 * locks need fails the startup with a report naming what Redis refused and the rule to give; a wrong password or
 * an untrusted certificate does not fail it, and is one WARN with the root cause's own words, not one per second.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisPermissionStartupTests {

	private static final String RULE = RedisPermissions.aclRule("lock:");

	private static TlsRedisServer server;

	private final RedisPermissionFailureAnalyzer analyzer = new RedisPermissionFailureAnalyzer();

	@BeforeAll
	static void startServer() {
		server = TlsRedisServer.start(RULE);
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	private static ApplicationContextRunner runner(String client, String... properties) {
		return server.runner(client, false).withPropertyValues(properties);
	}

	private static void grant(String rule) {
		server.setUserRule(rule);
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void aUserWithoutChannelsFailsTheStartupNamingPublishAndTheRule(String client) {
		try {
			// what a user picks first: everything but @dangerous, and Redis 7 gives it no channel
			grant("~lock:* +@all -@dangerous");
			runner(client).run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("publish on channel 'lock:__released'")
					.contains("subscribe to channel 'lock:__released'");
				assertThat(analysis.getAction()).contains("ACL SETUSER <user> " + RULE);
			});
		}
		finally {
			grant(RULE);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void aRuleOfCategoriesWithoutTimeFailsTheStartupNamingTime(String client) {
		try {
			grant("~lock:* &lock:* +@scripting +@pubsub +@connection +@read +@write -@dangerous");
			runner(client).run((context) -> {
				assertThat(context).hasFailed();
				MissingRedisPermissionException missing = (MissingRedisPermissionException) this.analyzer
					.analyze(context.getStartupFailure())
					.getCause();
				assertThat(missing.getRefusals()).singleElement().asString().startsWith("time: ");
			});
		}
		finally {
			grant(RULE);
		}
	}

	@Test
	void aUserWithoutKeysUnderThePrefixFailsTheStartupAtTheScriptItself() {
		try {
			grant("~other:* &lock:* -@all +" + String.join(" +", RedisPermissions.COMMANDS));
			runner("lettuce").run((context) -> {
				assertThat(context).hasFailed();
				assertThat(this.analyzer.analyze(context.getStartupFailure()).getDescription())
					.contains("eval of the lock scripts on key 'lock:__probe'")
					.contains("NOPERM");
			});
		}
		finally {
			grant(RULE);
		}
	}

	@Test
	void springBootPrintsTheReportWithTheRuleToAdd(CapturedOutput output) {
		try {
			grant("~lock:* +@all -@dangerous");
			Map<String, Object> properties = new HashMap<>();
			for (String property : server.properties(false)) {
				properties.put(property.substring(0, property.indexOf('=')), property.substring(property.indexOf('=') + 1));
			}
			assertThat(StartupFailures.run(properties, TlsLockApplication.class)).isNotNull();
			assertThat(output).contains("APPLICATION FAILED TO START")
				.contains("lacks permissions the distributed locks need")
				.contains("publish on channel 'lock:__released'")
				.contains("ACL SETUSER <user> " + RULE);
		}
		finally {
			grant(RULE);
		}
	}

	@ImportAutoConfiguration({ SslAutoConfiguration.class, DataRedisAutoConfiguration.class,
			DistributedLockAutoConfiguration.class })
	static class TlsLockApplication {

	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void aWrongPasswordStartsAndWarnsOnceWithWrongpass(String client, CapturedOutput output) {
		runner(client, "spring.data.redis.password=wrong").run((context) -> {
			assertThat(context).hasNotFailed();
			await().atMost(Duration.ofSeconds(10)).until(() -> output.getOut().contains("WRONGPASS"));
			// the retries in the next seconds are quiet
			Thread.sleep(3500);
			assertThat(warnings(output)).singleElement().asString().contains("WRONGPASS");
			assertThat(output).doesNotContain("SubscriptionTask aborted");
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "lettuce", "jedis" })
	void anUntrustedCertificateStartsAndWarnsOnceWithPkix(String client, CapturedOutput output) {
		runner(client, "spring.ssl.bundle.pem.redis.truststore.certificate=file:"
				+ server.certificates().otherCaCertificate()).run((context) -> {
			assertThat(context).hasNotFailed();
			await().atMost(Duration.ofSeconds(10)).until(() -> output.getOut().contains("PKIX path building failed"));
			Thread.sleep(3500);
			assertThat(warnings(output)).singleElement().asString().contains("PKIX path building failed");
			assertThat(output).doesNotContain("SubscriptionTask aborted");
		});
	}

	private static List<String> warnings(CapturedOutput output) {
		return output.getOut().lines().filter((line) -> line.contains("Cannot subscribe to lock release")).toList();
	}

}
