package io.github.distributedlock.smoke.webflux;

import java.time.Duration;

import io.github.distributedlock.annotation.DistributedLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Updates the stock of a SKU without blocking; counts the callers inside in Redis.
 */
@Service
class StockService {

	private static final Logger logger = LoggerFactory.getLogger(StockService.class);

	private final ReactiveStringRedisTemplate redis;

	private final String instance;

	StockService(ReactiveStringRedisTemplate redis, @Value("${smoke.instance:webflux}") String instance) {
		this.redis = redis;
		this.instance = instance;
	}

	@DistributedLock(name = "stock", key = "#sku", acquireTimeout = "30s")
	public Mono<String> reserve(String sku) {
		return update(sku, "reserved");
	}

	/** The update, run when subscribed: under the lock of {@code stock:<sku>}, taken by its caller. */
	Mono<String> update(String sku, String what) {
		String inside = "smoke:inside:" + sku;
		return Mono.defer(() -> this.redis.opsForValue().increment(inside))
			.doOnNext((count) -> logger.info("locked section entered by {}: inside={} ({})", this.instance, count, what))
			.then(Mono.delay(Duration.ofMillis(150)))   // the warehouse's answer
			.then(Mono.defer(() -> this.redis.opsForValue().decrement(inside)))
			.doOnNext((count) -> logger.info("locked section left by {}", this.instance))
			.thenReturn(what + " " + sku + " by " + this.instance);
	}

}
