package io.github.distributedlock.autoconfigure;

import java.util.List;
import java.util.Map;

import io.github.distributedlock.redis.EvictingRedisException;
import io.github.distributedlock.redis.RedisPermissions;
import io.github.distributedlock.test.LockApplications;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.StartupFailures;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup check of the Redis store's eviction policy (issue 41), on one real {@code redis-server} this class
 * shares, started with {@code --maxmemory 4mb --maxmemory-policy volatile-ttl} (each test sets the policy it needs
 * with {@code CONFIG SET}): an evicting policy fails the startup with a report naming the server, the policy and
 * the fix, unless {@code distributed-lock.allow-evicting-redis} is set (then one WARN); {@code noeviction} starts
 * quietly; a user that may not read the configuration starts with one WARN saying what was not checked.
 */
@ExtendWith(OutputCaptureExtension.class)
class EvictingRedisStartupTests {

	private static final String USER = "locks";

	private static final String PASSWORD = "locks-password";

	private static RedisServer server;

	private final EvictingRedisFailureAnalyzer analyzer = new EvictingRedisFailureAnalyzer();

	@BeforeAll
	static void startServer() {
		RedisServer.assumeOnPath();
		server = RedisServer.start("--maxmemory", "4mb", "--maxmemory-policy", "volatile-ttl");
	}

	@AfterAll
	static void stopServer() {
		if (server != null) {
			server.close();
		}
	}

	@AfterEach
	void policyBack() {
		server.admin().configSet("maxmemory-policy", "volatile-ttl");
		server.admin().aclDeluser(USER);
	}

	private static ApplicationContextRunner runner(String... properties) {
		return LockApplications.runner("spring.data.redis.host=" + server.host(),
				"spring.data.redis.port=" + server.port())
			.withPropertyValues(properties);
	}

	private String where() {
		return server.host() + ":" + server.port();
	}

	@Test
	void volatileTtlFailsTheStartupNamingTheServerThePolicyAndTheFix() {
		runner().run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Redis server " + where() + " may evict lock keys")
				.contains("maxmemory 4194304 bytes with maxmemory-policy volatile-ttl")
				.contains("evicts keys that have a TTL")
				.contains("granted to a second holder");
			assertThat(analysis.getAction()).contains("maxmemory-policy noeviction on " + where())
				.contains("a Redis of their own")
				.contains("distributed-lock.allow-evicting-redis=true");
		});
	}

	@Test
	void allkeysLruFailsTheStartupToo() {
		server.admin().configSet("maxmemory-policy", "allkeys-lru");
		runner().run((context) -> {
			assertThat(context).hasFailed();
			EvictingRedisException evicting = (EvictingRedisException) this.analyzer
				.analyze(context.getStartupFailure())
				.getCause();
			assertThat(evicting.getServer()).isEqualTo(where());
			assertThat(evicting.getPolicy()).isEqualTo("allkeys-lru");
			assertThat(evicting.getMessage()).contains("evicts any key");
		});
	}

	@Test
	void noevictionStartsWithoutAWord(CapturedOutput output) {
		server.admin().configSet("maxmemory-policy", "noeviction");
		runner().run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("may evict lock keys").doesNotContain("EvictionCheck");
	}

	@Test
	void theOptOutStartsWithOneWarnNamingTheRisk(CapturedOutput output) {
		runner("distributed-lock.allow-evicting-redis=true").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(evictionLines(output)).singleElement()
				.asString()
				.contains("WARN")
				.contains("Redis server " + where() + " may evict lock keys")
				.contains("second holder")
				.contains("distributed-lock.allow-evicting-redis=true");
		});
	}

	@Test
	void aUserThatMayNotReadTheConfigurationStartsWithOneWarnNamingThePermission(CapturedOutput output) {
		// the least-privilege rule without the one permission the check needs
		String rule = RedisPermissions.aclRule("lock:").replace(" +config|get", "");
		grant(rule);
		runner("spring.data.redis.username=" + USER, "spring.data.redis.password=" + PASSWORD).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(evictionLines(output)).singleElement()
				.asString()
				.contains("WARN")
				.contains("Whether Redis server " + where() + " may evict lock keys")
				.contains("is not checked")
				.contains("add +config|get")
				.contains("NOPERM");
		});
	}

	@Test
	void theLeastPrivilegeRuleReadsThePolicyAndFailsTheStartup() {
		grant(RedisPermissions.aclRule("lock:"));
		runner("spring.data.redis.username=" + USER, "spring.data.redis.password=" + PASSWORD)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasRootCauseInstanceOf(EvictingRedisException.class));
	}

	@Test
	void springBootPrintsTheReport(CapturedOutput output) {
		assertThat(StartupFailures.run(
				Map.of("spring.data.redis.host", server.host(), "spring.data.redis.port", server.port()),
				LockApplication.class)).isNotNull();
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Redis server " + where() + " may evict lock keys")
			.contains("Set maxmemory-policy noeviction");
	}

	private static void grant(String rule) {
		server.cli("ACL", "SETUSER", USER, "reset", "on", ">" + PASSWORD);
		String[] words = ("ACL SETUSER " + USER + " " + rule).split(" ");
		server.cli(words);
	}

	private static List<String> evictionLines(CapturedOutput output) {
		return output.getOut().lines().filter((line) -> line.contains("may evict lock keys")).toList();
	}

	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class })
	static class LockApplication {

	}

}
