package io.github.distributedlock.smoke.jedis;

import java.time.Duration;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * A counter in Redis read and written back (no INCR) under the lock {@code counter}: without the lock, concurrent
 * adds get lost. Counts the callers inside in Redis.
 */
@Component
class Counter {

	private static final Logger logger = LoggerFactory.getLogger(Counter.class);

	private static final LockDefinition LOCK = LockDefinition.builder("counter")
		.acquireTimeout(Duration.ofSeconds(60))
		.build();

	private final DistributedLockTemplate locks;

	private final StringRedisTemplate redis;

	private final String instance;

	Counter(DistributedLockTemplate locks, StringRedisTemplate redis, @Value("${smoke.instance:jedis}") String instance) {
		this.locks = locks;
		this.redis = redis;
		this.instance = instance;
	}

	void add() throws InterruptedException {
		this.locks.execute(LOCK, () -> {
			Long inside = this.redis.opsForValue().increment("smoke:inside");
			logger.info("locked section entered by {}: inside={}", this.instance, inside);
			try {
				String value = this.redis.opsForValue().get("smoke:counter");
				Thread.sleep(20);   // the computation of the new value
				this.redis.opsForValue().set("smoke:counter", Long.toString((value != null) ? Long.parseLong(value) + 1 : 1));
			}
			finally {
				this.redis.opsForValue().decrement("smoke:inside");
			}
			return null;
		});
	}

}
