package io.github.distributedlock.sample;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The demo's paused holder: instance A takes the lock with a hard lease of {@value #LEASE_MILLIS} ms and then
 * stalls (as in a long GC pause) until instance B has taken the lock after A's lease ran out and written;
 * then A writes its stale value. With the fencing token the store refuses A's write; without it, A silently
 * overwrites B's newer value.
 */
final class FencingDemo {

	static final long LEASE_MILLIS = 300;

	static final int STALE_UNITS = 10;

	static final int NEWER_UNITS = 50;

	/**
	 * What one run showed.
	 * @param staleWriteAccepted whether A's late write was taken
	 * @param finalUnits the stock level at the end
	 * @param holderLearnedOfLoss whether A's release said its lock was lost
	 */
	record Result(boolean staleWriteAccepted, int finalUnits, boolean holderLearnedOfLoss) {

		String outcome() {
			return (this.staleWriteAccepted ? "stale write accepted" : "stale write refused") + "; stock "
					+ this.finalUnits + (this.finalUnits == NEWER_UNITS ? " (the newer holder's)" : " (newer write lost)");
		}

	}

	private FencingDemo() {
	}

	static Result run(ConfigurableApplicationContext a, ConfigurableApplicationContext b, boolean fenced)
			throws Exception {
		String sku = "sku-" + UUID.randomUUID();
		FencedStock stock = a.getBean(FencedStock.class);
		DistributedLockTemplate templateA = a.getBean(DistributedLockTemplate.class);
		CountDownLatch aHolds = new CountDownLatch(1);
		CountDownLatch bWrote = new CountDownLatch(1);
		CompletableFuture<Void> instanceB = CompletableFuture.runAsync(() -> {
			await(aHolds);
			// waits until A's lease has run out, then holds the lock with a greater token
			if (fenced) {
				b.getBean(Restocking.class).restock(sku, NEWER_UNITS);
			}
			else {
				b.getBean(DistributedLockTemplate.class).execute("fenced-stock:" + sku, () -> {
					b.getBean(FencedStock.class).writeUnfenced(sku, NEWER_UNITS);
					return null;
				});
			}
			bWrote.countDown();
		});
		LockHandle handle = templateA.acquire(LockDefinition.builder("fenced-stock:" + sku)
			.lease(Duration.ofMillis(LEASE_MILLIS))
			.autoRenew(false)
			.build());
		aHolds.countDown();
		await(bWrote); // A is "paused" past its lease meanwhile
		boolean accepted = true;
		if (fenced) {
			accepted = stock.write(sku, STALE_UNITS, handle.fencingToken());
		}
		else {
			stock.writeUnfenced(sku, STALE_UNITS);
		}
		boolean learned = false;
		try {
			handle.close();
		}
		catch (LockLostException ex) {
			learned = true;
		}
		instanceB.get(30, TimeUnit.SECONDS);
		int finalUnits = stock.units(sku);
		stock.remove(sku); // the demo leaves nothing in the user's Redis
		return new Result(accepted, finalUnits, learned);
	}

	private static void await(CountDownLatch latch) {
		try {
			if (!latch.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("The other instance did not get there within 30 s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
