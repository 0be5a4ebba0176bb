package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.UUID;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@code LockLostException} says what the client knows: that the lock was gone when it released it or
 * renewed it (it expired, was deleted or was force-released), not that a lease ran out when it did not.
 */
class LossWordingTests {

	private final RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");

	private final DistributedLockTemplate template = new DistributedLockTemplate(this.client, Duration.ofSeconds(30),
			Duration.ZERO);

	private final RedisLockInspector inspector = new RedisLockInspector(SharedRedis.connectionFactory(), this.client);

	private final String key = "wording:" + UUID.randomUUID();

	@AfterEach
	void close() {
		this.client.close();
	}

	@Test
	void aForceReleasedLockIsReportedGoneAtReleaseNotAsALeaseThatRanOut() {
		LockHandle handle = this.template.acquire(LockDefinition.of(this.key));
		this.inspector.forceRelease(this.key);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close)
			.withMessageContaining("it was gone when its holder released it")
			.withMessageContaining("force-released")
			.withMessageNotContaining("ran out");
	}

	/**
	 * A lock's key overwritten with another type of value ({@code SET}) before the watchdog's next renewal: the
	 * release says the lock was lost and why, leaves the value alone, and is not retried as a failure to reach
	 * Redis.
	 */
	@Test
	void aKeyOverwrittenWithAnotherTypeIsReportedLostAtRelease() {
		LockHandle handle = this.template.acquire(LockDefinition.of(this.key));
		SharedRedis.redis().opsForValue().set("lock:" + this.key, "not a lock");
		try {
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close)
				.withMessageContaining("overwritten with a value that is no lock");
			assertThat(SharedRedis.redis().opsForValue().get("lock:" + this.key)).isEqualTo("not a lock");
			assertThat(this.client.heldLocks()).isEmpty();
		}
		finally {
			SharedRedis.redis().delete("lock:" + this.key);
		}
	}

	@Test
	void aHardLeaseThatRanOutIsReportedAsSuch() throws InterruptedException {
		LockHandle handle = this.template
			.acquire(LockDefinition.builder(this.key).lease(Duration.ofMillis(200)).autoRenew(false).build());
		Thread.sleep(400); // the holder's work, longer than its hard lease
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close)
			.withMessageContaining("its lease of 200 ms ran out (auto-renew was off)");
	}

}
