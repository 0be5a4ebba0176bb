package io.github.distributedlock.sample;

import java.util.List;

import io.github.distributedlock.fencing.FencedRedis;
import io.github.distributedlock.fencing.StaleFencingTokenException;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * A fenced resource: stock levels in Redis that refuse a write whose fencing token is older than the token of
 * their last accepted write. The library's {@link FencedRedis} does the check and the write in one script, and
 * keeps the accepted token beside the value ({@link FencedRedis#fencingTokenKey(String)}); for a table, its
 * {@code FencedJdbc} runs {@code UPDATE stock SET units = :units, fence = :token WHERE sku = :sku AND fence < :token}.
 * <p>
 * Why: a lock holder can pause (a GC pause, a network partition) past its lease; another instance then takes
 * the lock and writes. When the paused holder wakes and writes, only the token tells the store that its
 * write is stale. See M. Kleppmann, "How to do distributed locking" (2016).
 */
@Component
public class FencedStock {

	private final FencedRedis fenced;

	private final StringRedisTemplate redis;

	public FencedStock(FencedRedis fenced, StringRedisTemplate redis) {
		this.fenced = fenced;
		this.redis = redis;
	}

	/**
	 * Sets the units of a SKU if {@code fencingToken} is not older than the token of the last accepted write.
	 * @param sku the stock keeping unit
	 * @param units the new stock level
	 * @param fencingToken the writer's token, {@code LockContext.current().fencingToken()} in locked code
	 * @return {@code true} if written; {@code false} if refused as stale
	 */
	public boolean write(String sku, int units, long fencingToken) {
		try {
			this.fenced.hset(key(sku), "units", Integer.toString(units), fencingToken);
		}
		catch (StaleFencingTokenException ex) {
			return false;
		}
		// the demo leaves nothing behind for ever: the value and its token expire together
		this.redis.expire(key(sku), SampleData.TTL);
		this.redis.expire(FencedRedis.fencingTokenKey(key(sku)), SampleData.TTL);
		return true;
	}

	/**
	 * Sets the units of a SKU without any check: the demo's control, where a stale writer wins.
	 * @param sku the stock keeping unit
	 * @param units the new stock level
	 */
	public void writeUnfenced(String sku, int units) {
		this.redis.opsForHash().put(key(sku), "units", Integer.toString(units));
		this.redis.expire(key(sku), SampleData.TTL);
	}

	/**
	 * Returns the units of a SKU.
	 * @param sku the stock keeping unit
	 * @return the units, 0 if never written
	 */
	public int units(String sku) {
		Object units = this.redis.opsForHash().get(key(sku), "units");
		return (units != null) ? Integer.parseInt(units.toString()) : 0;
	}

	/**
	 * Deletes the stock of a SKU, and the token kept beside it, from Redis.
	 * @param sku the stock keeping unit
	 */
	public void remove(String sku) {
		this.redis.delete(List.of(key(sku), FencedRedis.fencingTokenKey(key(sku))));
	}

	private static String key(String sku) {
		return "sample:fenced-stock:" + sku;
	}

}
