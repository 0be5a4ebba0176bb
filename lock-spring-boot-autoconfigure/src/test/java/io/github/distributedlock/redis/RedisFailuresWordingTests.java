package io.github.distributedlock.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;

import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Failed commands are worded by what is known of them, with the failures a real client gives: a refused
 * connection sent nothing, so nothing ran; a command left without a reply may still run.
 */
class RedisFailuresWordingTests {

	@Test
	void aRefusedConnectionRanNothing() throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		Throwable failure = failureOf(factory(port, Duration.ofSeconds(2)));
		assertThat(RedisFailures.ranNothing(failure)).isTrue();
		assertThat(RedisFailures.outcome(failure)).startsWith("it was not sent (Redis could not be reached: ")
			.endsWith("so nothing ran")
			.doesNotContain("may still run");
	}

	@Test
	void aCommandWithoutAReplyMayStillRun() {
		try (RedisServer server = RedisServer.start()) {
			LettuceConnectionFactory factory = factory(server.port(), Duration.ofMillis(300));
			try {
				new StringRedisTemplate(factory).opsForValue().set("warm", "up");
				server.freeze();
				Throwable failure = failureOf(factory);
				assertThat(RedisFailures.ranNothing(failure)).isFalse();
				assertThat(RedisFailures.outcome(failure)).startsWith("no reply came in time")
					.contains("Redis may still run it");
			}
			finally {
				server.resume();
			}
		}
	}

	private static Throwable failureOf(LettuceConnectionFactory factory) {
		try {
			return catchThrowable(() -> new StringRedisTemplate(factory).opsForValue().set("key", "value"));
		}
		finally {
			factory.destroy();
		}
	}

	private static LettuceConnectionFactory factory(int port, Duration timeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(timeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
