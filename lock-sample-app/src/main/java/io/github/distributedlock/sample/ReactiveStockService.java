package io.github.distributedlock.sample;

import java.time.Duration;

import io.github.distributedlock.annotation.DistributedLock;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * The stock reservation of {@link StockService}, reactive: the same read-check-write on the same stock and the
 * same lock ({@code stock:<sku>}), through Spring Data Redis's reactive template. Under
 * {@code @DistributedLock} a {@code Mono} method acquires its lock when it is subscribed to, waits for it
 * without blocking a thread, and releases it when the {@code Mono} ends.
 */
@Service
public class ReactiveStockService {

	private final ReactiveStringRedisTemplate redis;

	public ReactiveStockService(ReactiveStringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Reserves units under the lock {@code stock:<sku>}, which it holds from the subscription until the
	 * reservation is written.
	 * @return whether the units were reserved
	 */
	@DistributedLock(name = "stock", key = "#sku", acquireTimeout = "30s")
	public Mono<Boolean> reserve(String sku, int units) {
		return reserveWithoutLock(sku, units);
	}

	/**
	 * The same reservation, unguarded: the demo's control.
	 * @return whether the units were (believed to be) reserved
	 */
	public Mono<Boolean> reserveWithoutLock(String sku, int units) {
		String key = StockService.stockKey(sku);
		return this.redis.opsForValue()
			.get(key)
			.map(Integer::parseInt)
			.defaultIfEmpty(0)
			.flatMap((available) -> (available < units) ? Mono.just(false)
					// e.g. a call to a payment service: the window in which others read the old stock
					: Mono.delay(Duration.ofMillis(1))
						.then(this.redis.opsForValue().set(key, Integer.toString(available - units), SampleData.TTL))
						.thenReturn(true));
	}

}
