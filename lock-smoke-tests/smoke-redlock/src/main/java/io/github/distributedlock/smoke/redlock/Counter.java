package io.github.distributedlock.smoke.redlock;

import io.github.distributedlock.annotation.DistributedLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * A counter read and written back (no INCR) under the Redlock lock {@code counter}: without the lock, concurrent
 * adds get lost. The counter, and the count of callers inside, live on the {@code spring.data.redis} server, the
 * test's checker, which is none of the Redlock nodes. Thread-safe through the lock only.
 */
@Component
class Counter {

	private static final Logger logger = LoggerFactory.getLogger(Counter.class);

	private final StringRedisTemplate checker;

	private final String instance;

	Counter(StringRedisTemplate checker, @Value("${smoke.instance:redlock}") String instance) {
		this.checker = checker;
		this.instance = instance;
	}

	@DistributedLock(name = "counter", acquireTimeout = "60s")
	public void add() throws InterruptedException {
		Long inside = this.checker.opsForValue().increment("smoke:inside");
		logger.info("locked section entered by {}: inside={}", this.instance, inside);
		try {
			String value = this.checker.opsForValue().get("smoke:counter");
			Thread.sleep(20);   // the computation of the new value
			this.checker.opsForValue().set("smoke:counter", Long.toString((value != null) ? Long.parseLong(value) + 1 : 1));
		}
		finally {
			this.checker.opsForValue().decrement("smoke:inside");
		}
	}

}
