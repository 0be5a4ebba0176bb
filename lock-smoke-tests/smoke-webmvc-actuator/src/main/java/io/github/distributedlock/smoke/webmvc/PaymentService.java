package io.github.distributedlock.smoke.webmvc;

import io.github.distributedlock.annotation.DistributedLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Pays an order, one payment of an order at a time across every instance; counts the callers inside in Redis.
 */
@Service
class PaymentService {

	private static final Logger logger = LoggerFactory.getLogger(PaymentService.class);

	private final StringRedisTemplate redis;

	private final String instance;

	PaymentService(StringRedisTemplate redis, @Value("${smoke.instance:web}") String instance) {
		this.redis = redis;
		this.instance = instance;
	}

	@DistributedLock(name = "order", key = "#id", acquireTimeout = "30s")
	public String pay(String id, long millis) throws InterruptedException {
		Long inside = this.redis.opsForValue().increment("smoke:inside:" + id);
		logger.info("locked section entered by {}: inside={}", this.instance, inside);
		try {
			Thread.sleep(millis);   // the payment provider's answer
			return "paid " + id + " by " + this.instance;
		}
		finally {
			this.redis.opsForValue().decrement("smoke:inside:" + id);
			logger.info("locked section left by {}", this.instance);
		}
	}

}
