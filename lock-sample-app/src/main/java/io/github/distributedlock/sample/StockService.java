package io.github.distributedlock.sample;

import io.github.distributedlock.annotation.DistributedLock;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Stock reservation: read the stock, check it, write it back. The read-check-write is not atomic in Redis,
 * so without a lock concurrent buyers on several instances oversell.
 */
@Service
public class StockService {

	private final StringRedisTemplate redis;

	public StockService(StringRedisTemplate redis) {
		this.redis = redis;
	}

	public void restock(String sku, int units) {
		this.redis.opsForValue().set(stockKey(sku), Integer.toString(units), SampleData.TTL);
	}

	/**
	 * Deletes the stock of a SKU from Redis.
	 */
	public void remove(String sku) {
		this.redis.delete(stockKey(sku));
	}

	public int stock(String sku) {
		String value = this.redis.opsForValue().get(stockKey(sku));
		return (value != null) ? Integer.parseInt(value) : 0;
	}

	/**
	 * Reserves units under the lock {@code stock:<sku>}: one buyer at a time per SKU, across all instances.
	 * @return whether the units were reserved
	 */
	@DistributedLock(name = "stock", key = "#sku", acquireTimeout = "30s")
	public boolean reserve(String sku, int units) {
		return reserveWithoutLock(sku, units);
	}

	/**
	 * The same reservation, unguarded: the demo's control.
	 * @return whether the units were (believed to be) reserved
	 */
	public boolean reserveWithoutLock(String sku, int units) {
		int available = stock(sku);
		if (available < units) {
			return false;
		}
		pretendToWork(); // e.g. a call to a payment service: the window in which others read the old stock
		this.redis.opsForValue().set(stockKey(sku), Integer.toString(available - units), SampleData.TTL);
		return true;
	}

	static String stockKey(String sku) {
		return "sample:stock:" + sku;
	}

	static void pretendToWork() {
		try {
			Thread.sleep(1);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
