package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.CommandStats;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.ReadWriteChecker;
import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Many readers of one read/write lock: the operations of one reader (renewal, re-entry, release, a new reader)
 * and a writer's try do not read the whole hash while no reader has expired, and the reader count and earliest
 * deadline the scripts keep for that (fields {@code ~n} and {@code ~t}) stay right as readers come, go and
 * expire. On a Redis server of its own, so that its command counts are this class's alone.
 */
class ManyReadersTests {

	private static final int READERS = 100;

	private static RedisServer server;

	private static LettuceConnectionFactory connectionFactory;

	private static StringRedisTemplate redis;

	private final List<RedisLockClient> clients = new ArrayList<>();

	private String key;

	@BeforeAll
	static void startRedis() {
		server = RedisServer.start();
		connectionFactory = server.connectionFactory();
		redis = new StringRedisTemplate(connectionFactory);
	}

	@AfterAll
	static void stopRedis() {
		connectionFactory.destroy();
		server.close();
	}

	@BeforeEach
	void newKey() {
		this.key = "many-readers:" + UUID.randomUUID();
	}

	@AfterEach
	void closeClients() {
		this.clients.forEach(RedisLockClient::close);
	}

	@Test
	void readersAndAWritersTryDoNotLoadTheWholeHashWhileNoReaderHasExpired() throws Exception {
		DistributedLockTemplate template = newTemplate();
		LockDefinition read = definition(LockType.READ, Duration.ofSeconds(1), true);
		List<LockHandle> readers = acquireFromThreadsOfTheirOwn(template, read, READERS);
		CommandStats.reset(redis);
		// two seconds: every reader is renewed about six times (a third of its lease), while another reader
		// comes, re-enters and goes, and a writer tries
		long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
		DistributedLockTemplate other = newTemplate();
		LockDefinition write = LockDefinition.builder(this.key).type(LockType.WRITE).acquireTimeout(Duration.ZERO).build();
		while (System.nanoTime() < end) {
			try (LockHandle outer = other.acquire(read); LockHandle inner = other.acquire(read)) {
				assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
			}
			assertThat(other.tryAcquire(write)).isEmpty();
		}
		long scripts = CommandStats.calls(redis, "evalsha");
		long fullLoads = CommandStats.calls(redis, "hgetall");
		assertThat(readers).noneMatch(LockHandle::isLost);
		assertThat(readerFields()).hasSize(READERS);
		// a full load is due each time the earliest deadline passes (about every two thirds of a lease)
		assertThat(scripts).isGreaterThan(READERS * 4L);
		assertThat(fullLoads).isLessThan(scripts / 20);
		closeAll(readers);
		assertThat(redis.hasKey(redisKey())).isFalse();
		try (LockHandle writer = other.acquire(write)) {
			assertThat(writer.type()).isEqualTo(LockType.WRITE);
		}
	}

	@Test
	void theReaderCountAndEarliestDeadlineStayRightAsReadersComeGoAndExpire() throws Exception {
		DistributedLockTemplate template = newTemplate();
		List<LockHandle> shortLived = acquireFromThreadsOfTheirOwn(template,
				definition(LockType.READ, Duration.ofMillis(1500), false), 20);
		List<LockHandle> renewed = acquireFromThreadsOfTheirOwn(template,
				definition(LockType.READ, Duration.ofSeconds(3), true), 10);
		assertSummaryMatchesReaders(30);
		renewed.remove(0).close();
		assertSummaryMatchesReaders(29);

		// the short leases end; the next operation that finds the earliest deadline passed deletes those readers
		LockDefinition write = LockDefinition.builder(this.key).type(LockType.WRITE).acquireTimeout(Duration.ZERO).build();
		DistributedLockTemplate writer = newTemplate();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(writer.tryAcquire(write)).isEmpty();
			assertThat(readerFields()).hasSize(9);
		});
		assertSummaryMatchesReaders(9);
		for (LockHandle handle : shortLived) {
			assertThatThrownBy(handle::close).isInstanceOf(LockLostException.class);
		}
		assertThat(renewed).noneMatch(LockHandle::isLost);

		// the last readers go (all but the last one on the fast path), and the writer gets the lock at once
		closeAll(renewed);
		assertThat(redis.hasKey(redisKey())).isFalse();
		Optional<LockHandle> acquired = writer.tryAcquire(write);
		assertThat(acquired).isPresent();
		acquired.get().close();
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	@Test
	void aWriterStillExcludesACrowdOfReadersThatComeAndGoOnShortLeases() throws Exception {
		// 40 readers and 2 writers on one lock, 1 s leases: the fast paths and the full loads (each time the
		// earliest deadline passes) take turns, and a writer must still never meet a reader
		DistributedLockTemplate[] templates = { newTemplate(), newTemplate() };
		ReadWriteChecker checker = new ReadWriteChecker(redis, "version:" + this.key);
		int writes = 10;
		Concurrently.run(42, 120, (thread) -> {
			DistributedLockTemplate template = templates[thread % 2];
			for (int i = 0; i < writes; i++) {
				LockType type = (thread < 2) ? LockType.WRITE : LockType.READ;
				try (LockHandle held = template.acquire(definition(type, Duration.ofSeconds(1), true))) {
					if (type == LockType.WRITE) {
						checker.write();
					}
					else {
						checker.read();
					}
				}
			}
		});
		assertThat(checker.violations()).isZero();
		assertThat(checker.tornReads()).isZero();
		assertThat(checker.version()).isEqualTo(2 * 2 * writes);
		assertThat(redis.hasKey(redisKey())).isFalse();
	}

	/** The summary fields agree with the readers in the hash, and every reader deadline is at least {@code ~t}. */
	private void assertSummaryMatchesReaders(int readers) {
		Map<String, String> hash = redis.<String, String>opsForHash().entries(redisKey());
		assertThat(readerFields()).hasSize(readers);
		assertThat(hash).containsEntry("~n", Integer.toString(readers));
		long earliest = Long.parseLong(hash.get("~t"));
		assertThat(hash.entrySet()).filteredOn((entry) -> entry.getKey().startsWith("t:"))
			.allSatisfy((entry) -> assertThat(Long.parseLong(entry.getValue())).isGreaterThanOrEqualTo(earliest));
	}

	private List<String> readerFields() {
		return redis.<String, String>opsForHash().keys(redisKey()).stream().filter((f) -> f.startsWith("r:")).toList();
	}

	/** Acquires {@code count} holds, each from a thread of its own (an owner is a thread); the handles outlive them. */
	private static List<LockHandle> acquireFromThreadsOfTheirOwn(DistributedLockTemplate template,
			LockDefinition definition, int count) throws InterruptedException {
		AtomicReferenceArray<LockHandle> handles = new AtomicReferenceArray<>(count);
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			int index = i;
			Thread thread = new Thread(() -> handles.set(index, template.acquire(definition)), "reader-" + i);
			thread.start();
			threads.add(thread);
		}
		List<LockHandle> acquired = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			threads.get(i).join();
			assertThat(handles.get(i)).as("reader %d acquired", i).isNotNull();
			acquired.add(handles.get(i));
		}
		return acquired;
	}

	private static void closeAll(List<LockHandle> handles) {
		handles.forEach(LockHandle::close);
	}

	private LockDefinition definition(LockType type, Duration lease, boolean autoRenew) {
		return LockDefinition.builder(this.key).type(type).lease(lease).autoRenew(autoRenew)
			.acquireTimeout(Duration.ofSeconds(10)).build();
	}

	private DistributedLockTemplate newTemplate() {
		RedisLockClient client = new RedisLockClient(connectionFactory, "lock:");
		this.clients.add(client);
		return new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ofSeconds(10));
	}

	private String redisKey() {
		return "lock:" + this.key;
	}

}
