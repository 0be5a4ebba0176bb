package io.github.distributedlock.redis;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.CommandStats;
import io.github.distributedlock.test.RedisClientLibrary;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A wait that release notifications wake faster than its tries fail: a busy key, another instance passing the
 * lock among its own threads. Each wake sends a try at once; on a blocking client (Jedis) the try's reply comes
 * back on the stack that sent it, so a wait that woke on that stack and tried again nested every try in the one
 * before, until the thread's stack overflowed (a CI run of the contract test on Jedis, 8 threads on one key).
 */
class WaitWakeStormTests {

	private final StringRedisTemplate redis = SharedRedis.redis();

	@ParameterizedTest
	@EnumSource(RedisClientLibrary.class)
	void aWaitWokenThousandsOfTimesWhileTheLockIsTakenStillGetsItWhenReleased(RedisClientLibrary library)
			throws Exception {
		String key = "storm:" + UUID.randomUUID();
		RedisLockClient holderClient = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		RedisLockClient waiterClient = new RedisLockClient(SharedRedis.connectionFactory(library), "lock:");
		AtomicBoolean storming = new AtomicBoolean(true);
		try {
			LockHandle held = holderClient.acquire(LockRequest.builder(key).lease(Duration.ofSeconds(60)).build());
			assertThat(held).isNotNull();
			CompletableFuture<LockHandle> waiting = waiterClient.acquireAsync(LockRequest.builder(key)
				.owner(waiterClient.newAsyncOwner())
				.lease(Duration.ofSeconds(30))
				.timeout(Duration.ofSeconds(60))
				.build());
			long triesBefore = CommandStats.calls(this.redis, "eval(?:sha)?");
			// release notifications, over and over, while the lock stays taken: every one wakes the wait
			CompletableFuture<Void> storm = CompletableFuture.runAsync(() -> {
				// what the subscription does for each release message: here with no round trip, so that a wake is
				// always waiting when a try ends
				NotificationListener notifications = waiterClient.session().notifications;
				while (storming.get()) {
					notifications.wake("lock:" + key);
				}
			});
			int deepest = 0;
			long stormEnds = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
			while (System.nanoTime() - stormEnds < 0 && !waiting.isDone()) {
				deepest = Math.max(deepest, deepestWait());
				Thread.sleep(2);
			}
			long tries = CommandStats.calls(this.redis, "eval(?:sha)?") - triesBefore;
			storming.set(false);
			storm.get(10, TimeUnit.SECONDS);
			// woken so often that tries nested in the ones before would have gone thousands of frames deep
			assertThat(tries).isGreaterThan(2_000);
			assertThat(deepest).isLessThan(200);
			if (library == RedisClientLibrary.JEDIS) {
				// its tries block the thread that tries after a wait: the samples saw it
				assertThat(deepest).isPositive();
			}
			assertThat(waiting).isNotDone();
			held.close();
			try (LockHandle acquired = waiting.get(10, TimeUnit.SECONDS)) {
				assertThat(acquired).isNotNull();
				assertThat(acquired.fencingToken()).isGreaterThan(held.fencingToken());
			}
		}
		finally {
			storming.set(false);
			waiterClient.close();
			holderClient.close();
		}
	}

	/**
	 * Returns the deepest stack, in frames, of the threads that are trying for a lock after a wait now, or 0.
	 */
	private static int deepestWait() {
		int deepest = 0;
		for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
			StackTraceElement[] stack = thread.getStackTrace();
			for (StackTraceElement frame : stack) {
				if (frame.getClassName().equals(RedisWait.class.getName()) && frame.getMethodName().equals("afterWait")) {
					deepest = Math.max(deepest, stack.length);
					break;
				}
			}
		}
		return deepest;
	}

}
