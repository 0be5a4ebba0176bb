package io.github.distributedlock.sample;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.core.LockContext;

import org.springframework.stereotype.Service;

/**
 * Restocking under a lock, writing through the {@link FencedStock} with the lock's fencing token: even a
 * holder that lost its lock while paused cannot overwrite what a later holder wrote.
 */
@Service
public class Restocking {

	private final FencedStock stock;

	public Restocking(FencedStock stock) {
		this.stock = stock;
	}

	/**
	 * Sets the stock of a SKU under the lock {@code fenced-stock:<sku>}.
	 * @return whether the store accepted the write
	 */
	@DistributedLock(name = "fenced-stock", key = "#sku")
	public boolean restock(String sku, int units) {
		return this.stock.write(sku, units, LockContext.current().fencingToken());
	}

}
