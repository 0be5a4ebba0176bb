package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.CommandStats;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The watchdog renews many reentrant locks with a few scripts, not one each: a batch of up to
 * {@link LeaseRenewalScripts#BATCH} locks per script; a lock whose key was overwritten is lost alone.
 */
class RenewalBatchTests {

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private final RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");

	@AfterEach
	void close() {
		this.client.close();
	}

	@Test
	void fourHundredLocksAreRenewedByAFewScriptsARound() {
		DistributedLockTemplate locks = new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ZERO);
		String prefix = "batch:" + UUID.randomUUID() + ":";
		List<LockHandle> held = new ArrayList<>();
		for (int i = 0; i < 400; i++) {
			held.add(locks.acquire(LockDefinition.builder(prefix + i).lease(Duration.ofMillis(900)).build()));
		}
		CommandStats.reset(redis);
		// about four renewal rounds (every 300 ms), with no acquisition or release meanwhile
		await().pollDelay(Duration.ofMillis(1300)).atMost(Duration.ofSeconds(5)).until(() -> true);
		long scripts = CommandStats.calls(redis, "eval(?:sha)?");
		long extended = CommandStats.calls(redis, "hexists");
		assertThat(held).noneMatch(LockHandle::isLost);
		assertThat(extended).as("locks renewed").isGreaterThanOrEqualTo(400 * 3);
		// one script per lock would be 1,200 or more
		assertThat(scripts).as("renewal scripts run").isLessThan(100);
		held.forEach(LockHandle::close);
		assertThat(redis.keys("lock:" + prefix + "*")).isEmpty();
	}

	@Test
	void aKeyOverwrittenWithAnotherTypeLosesOnlyItsOwnLockOfTheBatch() {
		DistributedLockTemplate locks = new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ZERO);
		String prefix = "overwritten:" + UUID.randomUUID() + ":";
		List<LockHandle> held = new ArrayList<>();
		for (int i = 0; i < 21; i++) {
			held.add(locks.acquire(LockDefinition.builder(prefix + i).lease(Duration.ofMillis(1500)).build()));
		}
		LockHandle overwritten = held.remove(7);
		redis.opsForValue().set("lock:" + prefix + 7, "not a lock");
		await().atMost(Duration.ofSeconds(5)).until(overwritten::isLost);
		// two more leases: a batch that failed as a whole would have lost the other twenty by then
		await().pollDelay(Duration.ofMillis(3000)).atMost(Duration.ofSeconds(10)).until(() -> true);
		assertThat(held).noneMatch(LockHandle::isLost);
		assertThatThrownBy(overwritten::checkHeld).isInstanceOf(LockLostException.class).hasMessageContaining("overwritten");
		// its release says it was lost, and why (not a failure to reach Redis)
		assertThatThrownBy(overwritten::close).isInstanceOf(LockLostException.class).hasMessageContaining("overwritten");
		assertThat(redis.opsForValue().get("lock:" + prefix + 7)).as("left as it was").isEqualTo("not a lock");
		held.forEach(LockHandle::close);
		redis.delete("lock:" + prefix + 7);
		assertThat(redis.keys("lock:" + prefix + "*")).isEmpty();
	}

}
