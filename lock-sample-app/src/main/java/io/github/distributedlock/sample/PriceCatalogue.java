package io.github.distributedlock.sample;

import java.util.List;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * A read-mostly price catalogue. A price is two Redis values, the net amount and the gross amount (net plus
 * 20 % tax), written one after the other by a repricing. Readers take the read lock and share it; the
 * occasional repricing takes the write lock, so no reader ever sees a new net with an old gross.
 */
@Service
public class PriceCatalogue {

	private final StringRedisTemplate redis;

	public PriceCatalogue(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/** A price as read: consistent when {@code gross == net * 12 / 10}. */
	public record Price(long net, long gross) {

		public boolean consistent() {
			return this.gross == this.net * 12 / 10;
		}

	}

	@DistributedLock(name = "price", key = "#sku", type = LockType.READ)
	public Price read(String sku) {
		return readWithoutLock(sku);
	}

	@DistributedLock(name = "price", key = "#sku", type = LockType.WRITE)
	public void reprice(String sku, long net) {
		repriceWithoutLock(sku, net);
	}

	public Price readWithoutLock(String sku) {
		long net = Long.parseLong(this.redis.opsForValue().get("sample:price:" + sku + ":net"));
		StockService.pretendToWork();
		long gross = Long.parseLong(this.redis.opsForValue().get("sample:price:" + sku + ":gross"));
		return new Price(net, gross);
	}

	public void repriceWithoutLock(String sku, long net) {
		this.redis.opsForValue().set("sample:price:" + sku + ":net", Long.toString(net), SampleData.TTL);
		StockService.pretendToWork();
		this.redis.opsForValue().set("sample:price:" + sku + ":gross", Long.toString(net * 12 / 10), SampleData.TTL);
	}

	/**
	 * Deletes the price of a SKU from Redis.
	 */
	public void remove(String sku) {
		this.redis.delete(List.of("sample:price:" + sku + ":net", "sample:price:" + sku + ":gross"));
	}

}
