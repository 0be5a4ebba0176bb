package io.github.distributedlock.redis;

import java.util.Properties;

import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Says which server the tests of this JVM run on, and checks it is the one asked for: {@code .ci/run} runs a
 * subset of the tests again on older servers and on Valkey ({@value RedisServer#SERVER_VARIABLE}), and names the
 * version it expects in {@value #EXPECTED_VARIABLE}, so that a run that silently fell back to another server
 * fails instead of claiming a version it did not test.
 */
class ServerVersionTests {

	/** The environment variable with the version (a prefix, such as {@code 6.2}) the server must report. */
	static final String EXPECTED_VARIABLE = "REDIS_SERVER_VERSION";

	@Test
	void theServerIsTheOneAskedFor() {
		Properties info = SharedRedis.server().admin().info("server").lines()
			.filter((line) -> line.contains(":"))
			.collect(Properties::new, (all, line) -> all.setProperty(line.substring(0, line.indexOf(':')),
					line.substring(line.indexOf(':') + 1).strip()), Properties::putAll);
		String name = info.getProperty("server_name", "redis");
		String version = info.getProperty("valkey_version", info.getProperty("redis_version"));
		System.out.printf("the tests run on %s %s (%s)%n", name, version,
				(System.getenv(RedisServer.SERVER_VARIABLE) != null) ? System.getenv(RedisServer.SERVER_VARIABLE)
						: "redis-server on PATH");
		String expected = System.getenv(EXPECTED_VARIABLE);
		if (expected != null && !expected.isBlank()) {
			assertThat(name + " " + version).as("the server version").startsWith(expected);
		}
	}

}
