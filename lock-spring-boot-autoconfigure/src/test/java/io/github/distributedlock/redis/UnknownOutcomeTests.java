package io.github.distributedlock.redis;

import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.OnThread;
import io.github.distributedlock.test.Owners;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.TcpProxy;
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

	/**
	 * Issue 41, finding 2, the retry: a release that timed out on a frozen Redis is sent again in the background;
	 * meanwhile Redis was killed and restarted empty, so the retry finds nothing held, on a server life that did not
	 * grant the lock: the loss is told to the owner (WARN, observer, {@code isLost()}). Before, the retry logged
	 * "Released lock ... on a retry" whatever Redis answered.
	 */
	@Test
	void aRetriedReleaseThatFindsTheLockWipedByARestartTellsTheLoss() throws Exception {
		Set<String> toldLost = ConcurrentHashMap.newKeySet();
		this.client.setLockObserver(new LockObserver() {

			@Override
			public void lost(String key, LockType type, String reason) {
				toldLost.add(key);
			}

		});
		LockHandle held = this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(30))
				.interruptible(false).build());
		this.server.freeze();
		// times out after the command timeout: the work stands, the release is retried in the background
		held.close();
		this.server.kill();
		this.server.restart();
		await().atMost(Duration.ofSeconds(20)).until(() -> toldLost.contains(this.key));
		assertThat(held.isLost()).isTrue();
	}

	/**
	 * Found by the SPIN model of the lock (docs/verification.md, "Findings"): a release whose every try fails
	 * until the lease ends. Redis freezes, the release times out, Redis is killed, so the retries find no server
	 * until the lease is over: the lock may have been wiped while its owner held it (here it was: the server comes
	 * back empty), and only the release could have found that out. The loss is told, as the release could not show
	 * Redis to be on the server life that granted the lock. Before, the retries stopped silently at the lease's end:
	 * the owner heard of a failed release, never of the loss.
	 */
	@Test
	void aReleaseThatGetsNoAnswerWithinItsLeaseAcrossAKillTellsTheLoss() throws Exception {
		Set<String> told = ConcurrentHashMap.newKeySet();
		this.client.setLockObserver(recordingLossesAndFailedReleases(told));
		LockHandle held = this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(3))
				.interruptible(false).build());
		this.server.freeze();
		// times out after the command timeout: the work stands, the release is retried in the background
		held.close();
		this.server.kill();
		try {
			await().atMost(Duration.ofSeconds(15)).until(() -> told.contains("lost " + this.key));
			assertThat(told).contains("release failed " + this.key);
			assertThat(held.isLost()).isTrue();
		}
		finally {
			this.server.restart();
		}
	}

	/**
	 * The other side of the retry's judgement: a release that timed out on a paused Redis ran when the pause ended,
	 * so its retry finds nothing held, on the server life that granted the lock: the first try released it, and no
	 * loss is told.
	 */
	@Test
	void aRetriedReleaseWhoseFirstTryRanIsNoLoss() throws Exception {
		Set<String> told = ConcurrentHashMap.newKeySet();
		this.client.setLockObserver(recordingLossesAndFailedReleases(told));
		LockHandle held = this.client.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(30))
				.interruptible(false).build());
		pauseServer();
		held.close();
		await().atMost(Duration.ofSeconds(5)).until(() -> told.contains("release failed " + this.key));
		// the first try runs when the pause ends; the retries after it find nothing held
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.redis.hasKey("lock:" + this.key));
		await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> !told.contains("lost " + this.key));
		assertThat(held.isLost()).isFalse();
	}

	/**
	 * Issue 41, finding 2: two releases sent while Redis is frozen; Redis is killed and restarted empty, and
	 * before this client reconnects, another instance acquires both locks on the new server and runs its scripts,
	 * so the new server knows them and answers no NOSCRIPT. Lettuce then fails one release and sends the other
	 * again; both find nothing of this client held. Neither may pass for a clean release: the lock ended without
	 * its owner's release, so each is reported lost to its owner, by {@code close()} or by the retry. Before, the
	 * one sent again passed for a release that ran twice, and the retry of the other logged "Released lock ...
	 * on a retry".
	 */
	@Test
	void releasesFindingALockWipedByARestartReportTheLossAlsoWhenAnotherInstanceReloadedTheScripts()
			throws Exception {
		String key1 = this.key + ":1";
		Set<String> toldLost = ConcurrentHashMap.newKeySet();
		try (TcpProxy proxy = new TcpProxy(this.server.host(), this.server.port())) {
			LettuceConnectionFactory viaProxy = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(this.server.host(), proxy.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(20)).build());
			viaProxy.afterPropertiesSet();
			viaProxy.start();
			RedisLockClient client = new RedisLockClient(viaProxy, "lock:");
			client.setLockObserver(new LockObserver() {

				@Override
				public void lost(String key, LockType type, String reason) {
					toldLost.add(key);
				}

			});
			RedisLockClient other = new RedisLockClient(this.clientFactory, "lock:");
			try {
				LockHandle first = client.acquire(LockRequest.builder(key1).lease(Duration.ofSeconds(30))
						.interruptible(false).build());
				LockHandle second = client.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(30))
						.interruptible(false).build());
				this.server.freeze();
				OnThread<Void> release1 = OnThread.start("release-1", () -> {
					first.close();
					return null;
				});
				awaitWaiting(release1);
				OnThread<Void> release2 = OnThread.start("release-2", () -> {
					second.close();
					return null;
				});
				awaitWaiting(release2);
				// this client's new connections carry nothing until the other instance is done
				proxy.partition();
				this.server.kill();
				this.server.restart();
				LockHandle otherFirst = other.acquire(LockRequest.builder(key1).lease(Duration.ofSeconds(30))
						.timeout(Duration.ofSeconds(10)).interruptible(false).build());
				LockHandle otherSecond = other.acquire(LockRequest.builder(this.key).lease(Duration.ofSeconds(30))
						.timeout(Duration.ofSeconds(10)).interruptible(false).build());
				assertThat(otherFirst).isNotNull();
				assertThat(otherSecond).isNotNull();
				// and runs another lock: the new server knows the release script too
				other.acquire(LockRequest.builder(this.key + ":other").lease(Duration.ofSeconds(30))
						.interruptible(false).build()).close();
				proxy.heal();
				for (OnThread<Void> release : java.util.List.of(release1, release2)) {
					try {
						release.get(30);
					}
					catch (LockLostException ex) {
						// told to the caller; the observer hears of it too
					}
				}
				await().atMost(Duration.ofSeconds(20)).until(() -> toldLost.containsAll(Set.of(key1, this.key)));
				assertThat(first.isLost()).isTrue();
				assertThat(second.isLost()).isTrue();
				// the other instance's holds are untouched
				for (String held : java.util.List.of(key1, this.key)) {
					assertThat(this.redis.opsForHash().keys("lock:" + held)).map(String.class::cast)
						.filteredOn((field) -> field.startsWith(other.getClientId()))
						.hasSize(1);
				}
				otherFirst.close();
				otherSecond.close();
			}
			finally {
				other.close();
				client.close();
				viaProxy.destroy();
			}
		}
	}

	/** An observer that adds "lost KEY" and "release failed KEY" to {@code told} as the client tells them. */
	private static LockObserver recordingLossesAndFailedReleases(Set<String> told) {
		return new LockObserver() {

			@Override
			public void lost(String key, LockType type, String reason) {
				told.add("lost " + key);
			}

			@Override
			public void releaseFailed(String key, LockType type, int permits) {
				told.add("release failed " + key);
			}

		};
	}

	private static void awaitWaiting(OnThread<?> caller) {
		await().atMost(Duration.ofSeconds(5)).until(() -> caller.thread().getState() == Thread.State.WAITING
				|| caller.thread().getState() == Thread.State.TIMED_WAITING);
	}

}
