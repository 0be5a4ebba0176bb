package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.CommandStats;
import io.github.distributedlock.test.LockHolder;
import io.github.distributedlock.test.ReplicatedRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Replica sync ({@code sync-replicas}) against a real primary and replica: a holder runs only once the replica
 * has its lock, whether it acquired it, was granted it by another instance's release or was handed it by a
 * thread of its own instance; an acquisition the frozen ({@code kill -STOP}) replica cannot acknowledge is
 * undone and fails after the acquire timeout, leaving no lock behind; turned off, it costs no command.
 */
@SuppressWarnings("try") // a resource that only holds a lock for the block is not referenced in it
class ReplicaSyncTests {

	/** How long a frozen replica must keep a holder from running: many sync timeouts (100 ms each). */
	private static final Duration KEPT_OUT = Duration.ofMillis(600);

	private static ReplicatedRedis servers;

	private static LettuceConnectionFactory connectionFactory;

	private static StringRedisTemplate primary;

	private final List<RedisLockClient> clients = new ArrayList<>();

	private final ExecutorService pool = Executors.newCachedThreadPool();

	private String key;

	@BeforeAll
	static void start() {
		servers = ReplicatedRedis.start();
		connectionFactory = servers.primary().connectionFactory();
		primary = new StringRedisTemplate(connectionFactory);
	}

	@AfterAll
	static void stop() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
		if (servers != null) {
			servers.close();
		}
	}

	@BeforeEach
	void newKey() {
		this.key = "sync:" + UUID.randomUUID();
	}

	@AfterEach
	void cleanUp() {
		servers.thaw();
		this.pool.shutdownNow();
		this.clients.forEach(RedisLockClient::close);
	}

	private DistributedLockTemplate template(int syncReplicas, Duration acquireTimeout) {
		return template(syncReplicas, Duration.ofMillis(100), acquireTimeout);
	}

	private DistributedLockTemplate template(int syncReplicas, Duration syncTimeout, Duration acquireTimeout) {
		RedisLockClient client = new RedisLockClient(connectionFactory, "lock:", syncReplicas, syncTimeout);
		this.clients.add(client);
		return new DistributedLockTemplate(client, Duration.ofSeconds(30), acquireTimeout);
	}

	private String redisKey() {
		return "lock:" + this.key;
	}

	/** The lock's hash as the replica has it, without the fencing token. */
	private Map<Object, Object> onReplica() {
		return ScriptResults.withoutToken(servers.replicaRedis().opsForHash().entries(redisKey()));
	}

	/**
	 * Runs {@code execute} on another thread; its body records that it runs, and returns what it sees: the
	 * lock's hash on the replica and its fencing token.
	 */
	private Future<Seen> holder(DistributedLockTemplate template, AtomicBoolean running) {
		return this.pool.submit(() -> template.execute(this.key, () -> {
			running.set(true);
			return new Seen(onReplica(), LockContext.current().fencingToken());
		}));
	}

	/**
	 * Checks that a holder does not run while the replica is frozen, however long, then thaws the replica, and
	 * checks that the holder then runs and finds its lock on the replica.
	 */
	private Seen keptOutUntilThawed(AtomicBoolean running, Future<Seen> holder) throws Exception {
		await().during(KEPT_OUT).atMost(KEPT_OUT.multipliedBy(3)).untilFalse(running);
		servers.thaw();
		Seen seen = holder.get(20, TimeUnit.SECONDS);
		assertThat(seen.onReplica()).as("the holder's hold count on the replica").hasSize(1).containsValue("1");
		return seen;
	}

	@Test
	void theHolderRunsOnlyOnceTheReplicaHasItsLock() throws Exception {
		DistributedLockTemplate template = template(1, Duration.ofSeconds(20));
		servers.freeze();
		AtomicBoolean running = new AtomicBoolean();
		// each try is undone after the sync timeout, and tried again
		keptOutUntilThawed(running, holder(template, running));
		assertThat(primary.hasKey(redisKey())).isFalse();
	}

	@Test
	void anAcquisitionTheReplicaDoesNotAcknowledgeFailsAfterTheTimeoutAndLeavesNoLock() throws Exception {
		DistributedLockTemplate template = template(1, Duration.ofMillis(700));
		servers.freeze();
		long start = System.nanoTime();
		assertThatThrownBy(() -> template.execute(this.key, () -> "ran")).isInstanceOf(LockAcquisitionException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(700))
			.isLessThan(Duration.ofSeconds(5));
		// undone on the primary while the replica is still frozen: another owner takes it at once
		assertThat(primary.hasKey(redisKey())).isFalse();
		Lock other = template(0, Duration.ZERO).getLock(this.key);
		assertThat(other.tryLock()).isTrue();
		other.unlock();
		servers.thaw();
		assertThat(template(1, Duration.ofSeconds(10)).execute(this.key, () -> "ran")).isEqualTo("ran");
	}

	@Test
	void aGrantToAnotherInstanceIsSyncedBeforeItsHolderRuns() throws Exception {
		DistributedLockTemplate holderInstance = template(1, Duration.ofSeconds(20));
		DistributedLockTemplate waiterInstance = template(1, Duration.ofSeconds(20));
		AtomicBoolean running = new AtomicBoolean();
		Future<Seen> waiter;
		try (LockHolder holder = new LockHolder(holderInstance.getLock(this.key))) {
			waiter = holder(waiterInstance, running);
			await().atMost(Duration.ofSeconds(5)).until(this::queuedInRedis);
			servers.freeze();
		}
		// the release granted the lock to the waiting instance, which must not run before the replica has it
		keptOutUntilThawed(running, waiter);
		assertThat(primary.hasKey(redisKey())).isFalse();
	}

	@Test
	void aHandOverToAThreadOfTheSameInstanceIsSyncedBeforeItRuns() throws Exception {
		DistributedLockTemplate template = template(1, Duration.ofSeconds(20));
		RedisLockClient client = this.clients.get(0);
		AtomicBoolean running = new AtomicBoolean();
		Future<Seen> next;
		long holderToken;
		try (LockHolder holder = new LockHolder(template.getLock(this.key))) {
			holderToken = Long.parseLong(primary.<String, String>opsForHash().get(redisKey(), "~f"));
			next = holder(template, running);
			await().atMost(Duration.ofSeconds(5)).until(() -> ClientProbe.of(client).queuedThreads(this.key) == 1);
			servers.freeze();
		}
		// the release handed the lock to the queued thread, which must not run before the replica has it; the
		// tokens of undone acquisitions are never used, and the one it runs with is greater than the holder's
		assertThat(keptOutUntilThawed(running, next).token()).isGreaterThan(holderToken);
		assertThat(primary.hasKey(redisKey())).isFalse();
	}

	@Test
	void aWaitingSyncDoesNotHoldUpTheApplicationsOtherCommands() throws Exception {
		DistributedLockTemplate template = template(1, Duration.ofSeconds(2));
		primary.opsForValue().set(redisKey() + ":other", "value");
		servers.freeze();
		// tries again and again, each WAIT blocking its connection for the 100 ms sync timeout
		Future<?> acquisition = this.pool.submit(() -> template.execute(this.key, () -> null));
		await().atMost(Duration.ofSeconds(5)).until(() -> CommandStats.calls(primary, "wait") > 0);
		long start = System.nanoTime();
		for (int i = 0; i < 20; i++) {
			assertThat(primary.opsForValue().get(redisKey() + ":other")).isEqualTo("value");
		}
		// on the application's shared connection, each GET would wait behind a WAIT: about 20 x 100 ms
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
		assertThatThrownBy(() -> acquisition.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(LockAcquisitionException.class);
		primary.delete(redisKey() + ":other");
	}

	@Test
	void readAndWriteLocksAreSyncedToo() throws Exception {
		DistributedLockTemplate template = template(1, Duration.ofMillis(400));
		ReadWriteLock readWrite = template.getReadWriteLock(this.key);
		servers.freeze();
		assertThat(readWrite.readLock().tryLock(400, TimeUnit.MILLISECONDS)).isFalse();
		assertThat(readWrite.writeLock().tryLock(400, TimeUnit.MILLISECONDS)).isFalse();
		assertThat(primary.hasKey(redisKey())).isFalse();
		servers.thaw();
		assertThat(readWrite.writeLock().tryLock(5, TimeUnit.SECONDS)).isTrue();
		try {
			assertThat(servers.replicaRedis().opsForHash().get(redisKey(), "wc")).isEqualTo("1");
		}
		finally {
			readWrite.writeLock().unlock();
		}
		assertThat(readWrite.readLock().tryLock(5, TimeUnit.SECONDS)).isTrue();
		try {
			assertThat(servers.replicaRedis().opsForHash().keys(redisKey())).anyMatch((f) -> f.toString().startsWith("r:"));
		}
		finally {
			readWrite.readLock().unlock();
		}
	}

	@Test
	void semaphorePermitsAreSyncedToo() throws Exception {
		DistributedLockTemplate template = template(1, Duration.ofMillis(400));
		LockDefinition semaphore = LockDefinition.builder(this.key).permits(2).build();
		servers.freeze();
		// a permit the replica cannot acknowledge is undone: nothing is left on the primary
		assertThat(template.tryAcquire(semaphore)).isEmpty();
		assertThat(primary.hasKey(redisKey())).isFalse();
		servers.thaw();
		try (LockHandle first = template.acquire(semaphore); LockHandle second = template(1, Duration.ofSeconds(5))
			.acquire(semaphore)) {
			// each holder ran only once the replica had its permit
			assertThat(servers.replicaRedis().opsForHash().keys(redisKey()))
				.filteredOn((field) -> field.toString().startsWith("h:"))
				.hasSize(2);
		}
	}

	@Test
	void aLockCallThatWasInterruptedWhileWaitingIsStillSyncedAndKeepsTheInterrupt() throws Exception {
		DistributedLockTemplate holderInstance = template(1, Duration.ofSeconds(20));
		Lock lock = template(1, Duration.ofSeconds(20)).getLock(this.key);
		AtomicReference<Thread> waiterThread = new AtomicReference<>();
		Future<Seen> waiter;
		try (LockHolder holder = new LockHolder(holderInstance.getLock(this.key))) {
			waiter = this.pool.submit(() -> {
				waiterThread.set(Thread.currentThread());
				lock.lock();
				// lock() does not give up when interrupted: it goes on waiting, and keeps the interrupt
				boolean interrupted = Thread.interrupted();
				try {
					return new Seen(onReplica(), interrupted ? 1 : 0);
				}
				finally {
					lock.unlock();
				}
			});
			// interrupted while it waits for the acquisition
			await().atMost(Duration.ofSeconds(5)).until(() -> queuedInRedis() && waitsForTheLock(waiterThread.get()));
			waiterThread.get().interrupt();
		}
		Seen seen = waiter.get(20, TimeUnit.SECONDS);
		assertThat(seen.onReplica()).hasSize(1).containsValue("1");
		assertThat(seen.token()).as("interrupted").isEqualTo(1);
	}

	/** Whether a thread is parked waiting for its acquisition to complete. */
	private static boolean waitsForTheLock(Thread thread) {
		return thread.getState() == Thread.State.WAITING && Arrays.stream(thread.getStackTrace())
			.anyMatch((frame) -> frame.getClassName().equals(CompletableFuture.class.getName()));
	}

	private boolean queuedInRedis() {
		return primary.<String, String>opsForHash().keys(redisKey()).stream().anyMatch((f) -> f.startsWith("q:"));
	}

	@Test
	void theSyncScriptIsSentAgainWhenRedisForgotIt() {
		DistributedLockTemplate template = template(1, Duration.ofSeconds(10));
		template.execute(this.key, () -> null);
		// as after a restart of Redis: EVALSHA answers NOSCRIPT, and the sync falls back to EVAL
		primary.execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
		assertThat(template.execute(this.key, () -> onReplica())).hasSize(1).containsValue("1");
	}

	@Test
	void replicaSyncCostsOneScriptAndOneWaitPerAcquisitionAndNothingWhenOff() {
		DistributedLockTemplate off = template(0, Duration.ofSeconds(5));
		// a long sync timeout: WAIT returns as soon as the replica acknowledges, and none is undone on a slow machine
		DistributedLockTemplate on = template(1, Duration.ofSeconds(5), Duration.ofSeconds(5));
		// loads the scripts, so that no EVALSHA below falls back to EVAL
		off.execute(this.key, () -> null);
		on.execute(this.key, () -> null);
		long scripts = scriptCalls();
		long waits = commandCalls("wait");
		for (int i = 0; i < 10; i++) {
			off.execute(this.key, () -> null);
		}
		assertThat(scriptCalls() - scripts).as("acquire and release").isEqualTo(20);
		assertThat(commandCalls("wait") - waits).isZero();
		for (int i = 0; i < 10; i++) {
			on.execute(this.key, () -> null);
		}
		assertThat(scriptCalls() - scripts).as("and the touch before each WAIT").isEqualTo(20 + 30);
		assertThat(commandCalls("wait") - waits).isEqualTo(10);
	}

	private static long scriptCalls() {
		return commandCalls("eval(?:sha)?");
	}

	private static long commandCalls(String commands) {
		return CommandStats.calls(primary, commands);
	}

	/**
	 * What a holder saw while it held the lock.
	 * @param onReplica the lock's hash on the replica, without the fencing token
	 * @param token its fencing token
	 */
	private record Seen(Map<Object, Object> onReplica, long token) {
	}

}
