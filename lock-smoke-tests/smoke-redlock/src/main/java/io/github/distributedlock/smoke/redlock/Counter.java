package io.github.distributedlock.smoke.redlock;

import io.github.distributedlock.annotation.DistributedLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * A counter read and written back (no INCR) under the Redlock lock {@code counter}: without the lock, concurrent
 * adds get lost. The counter, and the count of callers inside, live on the test's {@link Checker}, which is none of
 * the Redlock nodes. Thread-safe through the lock only.
 */
@Component
class Counter {

	private static final Logger logger = LoggerFactory.getLogger(Counter.class);

	private final Checker checker;

	private final String instance;

	Counter(Checker checker, @Value("${smoke.instance:redlock}") String instance) {
		this.checker = checker;
		this.instance = instance;
	}

	@DistributedLock(name = "counter", acquireTimeout = "60s")
	public void add() throws InterruptedException {
		Long inside = this.checker.redis().incr("smoke:inside");
		logger.info("locked section entered by {}: inside={}", this.instance, inside);
		try {
			String value = this.checker.redis().get("smoke:counter");
			Thread.sleep(20);   // the computation of the new value
			this.checker.redis().set("smoke:counter", Long.toString((value != null) ? Long.parseLong(value) + 1 : 1));
		}
		finally {
			this.checker.redis().decr("smoke:inside");
		}
	}

}
