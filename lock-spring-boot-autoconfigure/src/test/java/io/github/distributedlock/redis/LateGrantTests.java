package io.github.distributedlock.redis;

import io.github.distributedlock.core.LockRequest;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 28, finding 4: a grant that ran in Redis before a try that then failed without running (its connection
 * could not be made), and whose message arrives only after that failure, is accepted with a lease counted from
 * the last try Redis answered, never from the failed one, which was sent after the grant: the confirmed lease
 * never outlasts the lease in Redis. On the shared redis-server: a real holder releases and grants the lock in
 * Redis, and the waiter's grant channel is real; the test holds the grant message back (as a slow subscription
 * would) and makes the waiter's tries fail to connect meanwhile.
 */
class LateGrantTests {

	private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

	private final RedisConnectionFactory connectionFactory = SharedRedis.connectionFactory();

	private final String channel = RedisLockClient.channel("lock:");

	private final String key = "late-grant:" + UUID.randomUUID();

	private final RedisLockClient holder = new RedisLockClient(this.connectionFactory, "lock:");

	private final RedisMessageListenerContainer grants = new RedisMessageListenerContainer();

	@AfterEach
	void stop() throws Exception {
		this.holder.close();
		this.grants.stop();
		this.grants.destroy();
		this.timer.shutdownNow();
		SharedRedis.redis().delete("lock:" + this.key);
	}

	@Test
	void aGrantWhoseMessageComesAfterAFailedTryCountsItsLeaseFromTheLastAnsweredTry() throws Exception {
		String waiterClient = UUID.randomUUID().toString();
		String waiterOwner = waiterClient + ":1/1";
		// the waiter's grant channel, listened to by the test, which passes the grant on when it chooses
		List<String> heldBack = new CopyOnWriteArrayList<>();
		AtomicBoolean listening = new AtomicBoolean();
		this.grants.setConnectionFactory(this.connectionFactory);
		this.grants.addMessageListener((message, pattern) -> {
			String body = new String(message.getBody(), StandardCharsets.UTF_8);
			if (body.equals("ready")) {
				listening.set(true);
			}
			else {
				heldBack.add(body);
			}
		}, new ChannelTopic(this.channel + ":" + waiterClient));
		this.grants.afterPropertiesSet();
		this.grants.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			SharedRedis.redis().convertAndSend(this.channel + ":" + waiterClient, "ready");
			return listening.get();
		});
		FailingTransport transport = new FailingTransport(ScriptTransport.of(this.connectionFactory));
		NotificationChannels channels = new NotificationChannels("lock:", NotificationMode.CLASSIC);
		ScriptExecutor scripts = new ScriptExecutor(transport);
		LockKinds kinds = new LockKinds(new KindScripts(scripts, channels, new WithdrawalSender(scripts)));
		// subscribed to another client's grants: the waiter's own come through the test only
		try (NotificationListener notifications = new NotificationListener(this.connectionFactory, "lock:", channels,
				"nobody-" + waiterClient, this.timer, new ConnectionBreaks())) {
			WaitingAcquirer waiting = new WaitingAcquirer(notifications, Runnable::run, this.timer, Runnable::run,
					new AtomicBoolean());
			assertThat(this.holder.acquire(LockRequest.builder(this.key)
				.lease(Duration.ofSeconds(30))
				.timeout(Duration.ZERO)
				.interruptible(false)
				.releasedByThread()
				.build())).isNotNull();
			String redisKey = "lock:" + this.key;
			Attempt attempt = new Attempt(new Hold.HoldId(this.key, LockType.REENTRANT, 1), redisKey,
					kinds.of(LockType.REENTRANT, 1), waiterOwner, 30_000, true, "");
			RedisWait wait = waiting.acquire(attempt, false, System.nanoTime() + TimeUnit.SECONDS.toNanos(20));
			// its first try was answered: it waits in Redis's queue
			await().atMost(Duration.ofSeconds(5))
				.until(() -> SharedRedis.redis().opsForHash().hasKey(redisKey, "q:" + waiterOwner));
			transport.failing.set(true);
			long releaseSent = System.nanoTime();
			this.holder.release(this.key, LockType.REENTRANT);
			await().atMost(Duration.ofSeconds(5)).until(() -> !heldBack.isEmpty());
			// a try sent after the grant ran fails without running
			await().atMost(Duration.ofSeconds(5)).until(() -> transport.lastFailedAt - releaseSent > 0);
			notifications.granted(heldBack.get(0));
			WaitingAcquirer.Acquired acquired = wait.result().get(10, TimeUnit.SECONDS);
			assertThat(acquired).isNotNull();
			long pttl = SharedRedis.redis().getExpire(redisKey, TimeUnit.MILLISECONDS);
			long confirmedLeft = TimeUnit.NANOSECONDS.toMillis(acquired.sentAt() - System.nanoTime()) + 30_000;
			System.out.println("Late grant: lease confirmed for " + confirmedLeft + " ms more, " + pttl + " ms in Redis");
			// the lease counts from before the grant ran, so it ends no later than Redis's
			assertThat(acquired.sentAt() - releaseSent).as("the confirmed lease's start against the grant's")
				.isNegative();
			assertThat(confirmedLeft).isLessThanOrEqualTo(pttl);
		}
	}

	/** A transport whose scripts fail to connect, having run nothing, while {@link #failing} is set. */
	private static final class FailingTransport implements ScriptTransport {

		private final ScriptTransport redis;

		final AtomicBoolean failing = new AtomicBoolean();

		/** {@link System#nanoTime()} of the last script that failed. */
		volatile long lastFailedAt;

		FailingTransport(ScriptTransport redis) {
			this.redis = redis;
		}

		@Override
		public CompletableFuture<Object> eval(RedisScript<?> script, boolean multi, boolean sendText, int numKeys,
				byte[][] keysAndArgs) {
			if (this.failing.get()) {
				this.lastFailedAt = System.nanoTime();
				return CompletableFuture.failedFuture(new RedisConnectionFailureException("Unable to connect to Redis",
						new ConnectException("Connection refused (the test's)")));
			}
			return this.redis.eval(script, multi, sendText, numKeys, keysAndArgs);
		}

		@Override
		public boolean isCluster() {
			return this.redis.isCluster();
		}

		@Override
		public List<CompletableFuture<Object>> evalAll(List<RedisScript<Long>> scripts, List<byte[][]> keysAndArgs) {
			return this.redis.evalAll(scripts, keysAndArgs);
		}

		@Override
		public boolean isBlocking() {
			return this.redis.isBlocking();
		}

	}

}
