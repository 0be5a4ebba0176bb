package io.github.distributedlock.sample;

import java.util.List;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * A fenced resource: stock levels that remember the fencing token of their last accepted write and refuse a
 * write whose token is not greater. This is the pattern to copy for any store a lock protects: the check and
 * the write are one atomic step in the store itself (here a Lua script; in SQL
 * {@code UPDATE stock SET units = :units, fence = :token WHERE sku = :sku AND fence < :token}).
 * <p>
 * Why: a lock holder can pause (a GC pause, a network partition) past its lease; another instance then takes
 * the lock and writes. When the paused holder wakes and writes, only the token tells the store that its
 * write is stale. See M. Kleppmann, "How to do distributed locking" (2016).
 */
@Component
public class FencedStock {

	private static final RedisScript<Long> WRITE = RedisScript
		.of(new ClassPathResource("io/github/distributedlock/sample/fenced_write.lua"), Long.class);

	private final StringRedisTemplate redis;

	public FencedStock(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Sets the units of a SKU if {@code fencingToken} is greater than the token of the last accepted write.
	 * @param sku the stock keeping unit
	 * @param units the new stock level
	 * @param fencingToken the writer's token, {@code LockContext.current().fencingToken()} in locked code
	 * @return {@code true} if written; {@code false} if refused as stale
	 */
	public boolean write(String sku, int units, long fencingToken) {
		Long written = this.redis.execute(WRITE, List.of(key(sku)), Long.toString(fencingToken),
				Integer.toString(units), Long.toString(SampleData.TTL.toMillis()));
		return Long.valueOf(1).equals(written);
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
	 * Deletes the stock of a SKU from Redis.
	 * @param sku the stock keeping unit
	 */
	public void remove(String sku) {
		this.redis.delete(key(sku));
	}

	private static String key(String sku) {
		return "sample:fenced-stock:" + sku;
	}

}
