package io.github.distributedlock.redis;

import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.OnThread;
import io.github.distributedlock.test.Owners;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Round trips that time out on the client but run in Redis afterwards (a server paused past the client's
 * command timeout): the lock is left with no owner neither by a re-entry nor by a first try (issue 14, item 4).
 * A server of its own: pausing it pauses every client.
 */
class UnknownOutcomeTests {

	/** The lock client's command timeout: the pause outlasts it. */
	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(1000);

	private static final long PAUSE_MILLIS = 2500;

	private RedisServer server;

	private LettuceConnectionFactory clientFactory;

	private LettuceConnectionFactory testFactory;

	private StringRedisTemplate redis;

	private RedisLockClient client;

	private final String key = "unknown:" + UUID.randomUUID();

	@BeforeEach
	void start() {
		this.server = RedisServer.start();
		this.clientFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.server.host(), this.server.port()),
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		this.clientFactory.afterPropertiesSet();
		this.clientFactory.start();
		// waits out the pause
		this.testFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.server.host(), this.server.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		this.testFactory.afterPropertiesSet();
		this.testFactory.start();
		this.redis = new StringRedisTemplate(this.testFactory);
		this.client = new RedisLockClient(this.clientFactory, "lock:");
	}

	@AfterEach
	void stop() {
		this.client.close();
		this.clientFactory.destroy();
		this.testFactory.destroy();
		this.server.close();
	}

	/** Pauses the server: commands sent from now on run when the pause ends, after the client gave up on them. */
	private void pauseServer() {
		this.redis.execute((RedisCallback<Object>) (connection) -> connection.execute("CLIENT",
				"PAUSE".getBytes(StandardCharsets.UTF_8), Long.toString(PAUSE_MILLIS).getBytes(StandardCharsets.UTF_8),
				"ALL".getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void aReentryThatTimedOutButRanIsReleasedWithTheOuterHold() throws Exception {
		assertThat((this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(10)).interruptible(false)
				.releasedByThread().build()) != null))
			.isTrue();
		String owner = Owners.current(this.client);
		pauseServer();
		// a longer lease than the outer hold's: the re-entry goes to Redis, times out, and runs there later
		assertThatExceptionOfType(DistributedLockException.class).isThrownBy(() -> this.client.acquire(LockRequest.builder(this.key)
				.lease(Duration.ofSeconds(30)).interruptible(false).releasedByThread().build()));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> "2".equals(this.redis.opsForHash().get("lock:" + this.key, owner)));
		this.client.release(this.key, LockType.REENTRANT);
		// before: the release took one hold of two, and the lock stayed, owned by nobody, for 30 s
		assertThat(this.redis.hasKey("lock:" + this.key)).isFalse();
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void aFirstTryThatTimedOutIsSentAgainWithinTheAcquireTimeoutAndHoldsTheLockOnce(LockType type) throws Exception {
		// the client's connection is made, and the scripts loaded: what times out is the try itself
		assertThat((this.client.acquire(LockRequest.builder(this.key).type(type).lease(Duration.ofSeconds(30))
				.interruptible(false).releasedByThread().build()) != null)).isTrue();
		this.client.release(this.key, type);
		pauseServer();
		// the first try times out after 1 s and ran when the pause ended; the same attempt's tries after it find
		// the lock held by that attempt and hold it once (before: the call failed, and the hold stayed, owned by
		// nobody, until its lease ended)
		assertThat((this.client.acquire(LockRequest.builder(this.key).type(type).lease(Duration.ofSeconds(30))
				.timeout(Duration.ofSeconds(6)).interruptible(false).releasedByThread().build()) != null))
			.isTrue();
		this.client.release(this.key, type);
		assertThat(this.redis.hasKey("lock:" + this.key)).isFalse();
	}

	@ParameterizedTest
	@EnumSource(LockType.class)
	void aTryThatTimedOutAfterTheAcquireTimeoutLeavesNothingBehind(LockType type) throws Exception {
		assertThat((this.client.acquire(LockRequest.builder(this.key).type(type).lease(Duration.ofSeconds(30))
				.interruptible(false).releasedByThread().build()) != null)).isTrue();
		this.client.release(this.key, type);
		pauseServer();
		// the acquire timeout ends during the pause: the call fails, and the withdrawal sent after the tries takes
		// back what they acquired when the pause ended: the key goes long before its 30 s lease ends
		assertThatExceptionOfType(DistributedLockException.class).isThrownBy(() -> this.client.acquire(LockRequest.builder(this.key)
				.type(type).lease(Duration.ofSeconds(30)).timeout(Duration.ofMillis(1500)).interruptible(false)
				.releasedByThread().build()));
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(8)).until(() -> !this.redis.hasKey("lock:" + this.key));
		assertThat((this.client.acquire(LockRequest.builder(this.key).type(type).lease(Duration.ofSeconds(30))
				.interruptible(false).releasedByThread().build()) != null)).isTrue();
		this.client.release(this.key, type);
	}

	/**
	 * Issue 28, finding 2: a release sent while Redis is frozen behind another command; Redis is killed and
	 * restarted empty, Lettuce fails the command at the head, reconnects and sends the release again, which finds
	 * nothing held. That is not a release that ran twice (the first server never ran it, and the new one lost the
	 * scripts with the lock): the release reports the possible loss. Before, it passed for a release that ran
	 * twice, and {@code close()} returned normally.
	 */
	@Test
	void aReleaseSentAgainToARestartedEmptyRedisReportsThePossibleLoss() throws Exception {
		LettuceConnectionFactory patient = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.server.host(), this.server.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(20)).build());
		patient.afterPropertiesSet();
		patient.start();
		RedisLockClient client = new RedisLockClient(patient, "lock:");
		try {
			LockHandle held = client.acquire(LockRequest.builder(this.key)
					.lease(Duration.ofSeconds(30))
					.timeout(Duration.ofSeconds(5))
					.interruptible(false)
					.build());
			assertThat(held).isNotNull();
			this.server.freeze();
			// the command at the head of the connection, then the release behind it
			CompletableFuture<LockHandle> head = client.acquireAsync(LockRequest.builder(this.key + ":other")
					.lease(Duration.ofSeconds(30))
					.owner(client.newAsyncOwner())
					.build());
			try (OnThread<Void> release = OnThread.start("release", () -> {
				held.close();
				return null;
			})) {
				// the release was handed to Lettuce, which writes it behind the head at once: its caller waits
				await().atMost(Duration.ofSeconds(5)).until(() -> release.thread().getState() == Thread.State.WAITING
						|| release.thread().getState() == Thread.State.TIMED_WAITING);
				this.server.kill();
				this.server.restart();
				assertThatThrownBy(() -> release.get(30)).isInstanceOf(LockLostException.class)
					.hasMessageContaining("may have been wiped");
			}
			head.handle((handle, ex) -> handle).get(30, TimeUnit.SECONDS);
		}
		finally {
			client.close();
			patient.destroy();
		}
	}

}
