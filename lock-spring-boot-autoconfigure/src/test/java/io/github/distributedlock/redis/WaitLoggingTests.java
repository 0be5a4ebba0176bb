package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * DEBUG shows what a caller waited for, how long and how the wait ended; TRACE shows grants, hand-overs to a
 * waiter of the same client, and renewal batches. Off, none of it is printed.
 */
@ExtendWith(OutputCaptureExtension.class)
class WaitLoggingTests {

	private static final String[] CATEGORIES = { "io.github.distributedlock.redis.RedisWait",
			"io.github.distributedlock.redis.HoldReleaser", "io.github.distributedlock.redis.LeaseWatchdog" };

	private final LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());

	private final RedisLockClient holderClient = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");

	private final RedisLockClient waiterClient = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");

	private final DistributedLockTemplate holder = new DistributedLockTemplate(this.holderClient,
			Duration.ofSeconds(30), Duration.ZERO);

	private final DistributedLockTemplate waiter = new DistributedLockTemplate(this.waiterClient,
			Duration.ofSeconds(30), Duration.ZERO);

	private final String key = "waitlog:" + UUID.randomUUID();

	@AfterEach
	void tearDown() {
		for (String category : CATEGORIES) {
			this.logging.setLogLevel(category, null);
		}
		this.holderClient.close();
		this.waiterClient.close();
	}

	private void logAt(LogLevel level) {
		for (String category : CATEGORIES) {
			this.logging.setLogLevel(category, level);
		}
	}

	@Test
	void debugShowsAWaitThatTimedOutAndOneThatAcquired(CapturedOutput output) throws Exception {
		logAt(LogLevel.DEBUG);
		LockHandle held = this.holder.acquire(LockDefinition.of(this.key));
		assertThat(this.waiter.tryAcquire(LockDefinition.builder(this.key).acquireTimeout(Duration.ofMillis(300)).build()))
			.isEmpty();
		assertThat(output.getOut()).containsPattern("Waiting up to \\d+ ms for lock '" + this.key
				+ "' \\(REENTRANT\\) as .*: it is held, with \\d+ ms left of its lease");
		// the end of a wait is logged as the wait's result completes: it may follow the caller's return
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(output.getOut()).containsPattern("Waited \\d+ ms for lock '" + this.key
					+ "' \\(REENTRANT\\) as .* and gave up: its acquire timeout passed"));
		CompletableFuture<LockHandle> next = CompletableFuture.supplyAsync(
				() -> this.waiter.acquire(LockDefinition.builder(this.key).acquireTimeout(Duration.ofSeconds(20)).build()));
		await().atMost(Duration.ofSeconds(10)).until(() -> output.getOut().split("Waiting up to").length > 2);
		held.close();
		next.get(20, TimeUnit.SECONDS).close();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(output.getOut())
			.containsPattern("Waited \\d+ ms for lock '" + this.key + "' .* and acquired it"));
	}

	@Test
	void traceShowsAHandOverAndRenewals(CapturedOutput output) throws Exception {
		logAt(LogLevel.TRACE);
		LockHandle held = this.holder.acquire(LockDefinition.builder(this.key).lease(Duration.ofMillis(300)).build());
		await().atMost(Duration.ofSeconds(10)).until(() -> output.getOut().contains("Renewed 1 lock in one round trip"));
		// a second thread of the same client queues behind the holder in this client, and is handed the lock
		CompletableFuture<Void> sameClient = new CompletableFuture<>();
		Thread second = new Thread(() -> {
			try (LockHandle next = this.holder
				.acquire(LockDefinition.builder(this.key).acquireTimeout(Duration.ofSeconds(20)).build())) {
				sameClient.complete(null);
			}
			catch (RuntimeException ex) {
				sameClient.completeExceptionally(ex);
			}
		});
		second.start();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> second.getState() == Thread.State.WAITING || second.getState() == Thread.State.TIMED_WAITING);
		held.close();
		sameClient.get(20, TimeUnit.SECONDS);
		assertThat(output.getOut()).containsPattern("Lock '" + this.key + "' \\(REENTRANT\\) was (handed over by .* to "
				+ "the next waiter of this client|granted to waiting)");
	}

	@Test
	void offNothingIsPrinted(CapturedOutput output) {
		logAt(LogLevel.INFO);
		LockHandle held = this.holder.acquire(LockDefinition.builder(this.key).lease(Duration.ofMillis(300)).build());
		assertThat(this.waiter.tryAcquire(LockDefinition.builder(this.key).acquireTimeout(Duration.ofMillis(300)).build()))
			.isEmpty();
		held.close();
		assertThat(output.getOut()).doesNotContain("Waiting up to").doesNotContain("Waited").doesNotContain("Renewed");
	}

}
