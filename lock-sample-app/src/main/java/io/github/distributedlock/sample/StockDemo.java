package io.github.distributedlock.sample;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Flux;

import static io.github.distributedlock.sample.Demo.INITIAL_STOCK;
import static io.github.distributedlock.sample.Demo.INSTANCES;
import static io.github.distributedlock.sample.Demo.PURCHASES_PER_THREAD;
import static io.github.distributedlock.sample.Demo.THREADS;

/**
 * The demo's stock reservations: {@value Demo#INSTANCES} instances buy {@value Demo#INITIAL_STOCK} units of one
 * product with and without the lock, first on {@value Demo#THREADS} blocking threads each
 * ({@link StockService}), then with every try in flight at once and no thread waiting ({@link ReactiveStockService}).
 * Each run adds its row to the table.
 */
final class StockDemo {

	private StockDemo() {
	}

	/**
	 * Runs the blocking reservations with the lock, then without.
	 * @param instances the demo's instances
	 * @param rows the table, two rows added
	 * @return the units oversold with the lock, then without
	 * @throws Exception if a buyer failed
	 */
	static int[] reservations(DemoInstances instances, List<Demo.Row> rows) throws Exception {
		int[] oversold = new int[2];
		for (boolean locked : new boolean[] { true, false }) {
			String sku = restockedSku(instances);
			AtomicInteger sold = new AtomicInteger();
			long millis = Demo.timed(() -> instances.onEveryThread((instance) -> {
				StockService stock = instance.getBean(StockService.class);
				for (int i = 0; i < PURCHASES_PER_THREAD; i++) {
					if (locked ? stock.reserve(sku, 1) : stock.reserveWithoutLock(sku, 1)) {
						sold.incrementAndGet();
					}
				}
			}, THREADS));
			int over = Math.max(0, sold.get() - INITIAL_STOCK);
			oversold[locked ? 0 : 1] = over;
			rows.add(new Demo.Row("Stock reservation" + (locked ? ", @DistributedLock" : ", no lock"),
					INSTANCES + " x " + THREADS + " buyers, " + INSTANCES * THREADS * PURCHASES_PER_THREAD
							+ " tries for " + INITIAL_STOCK + " units",
					sold.get() + " sold, " + over + " oversold", millis));
		}
		return oversold;
	}

	/**
	 * The reservations again through {@link ReactiveStockService}: every try of every instance in flight at once,
	 * and no thread waits for the lock.
	 * @param instances the demo's instances
	 * @param rows the table, two rows added
	 * @return how many units the locked run oversold
	 * @throws Exception if the tries did not end within 2 minutes
	 */
	static int reactiveReservations(DemoInstances instances, List<Demo.Row> rows) throws Exception {
		int tries = INSTANCES * THREADS * PURCHASES_PER_THREAD;
		int oversoldWithLock = 0;
		for (boolean locked : new boolean[] { true, false }) {
			String sku = restockedSku(instances);
			int threadsBefore = Thread.activeCount();
			AtomicInteger maxThreads = new AtomicInteger(threadsBefore);
			long[] sold = new long[1];
			long millis = Demo.timed(() -> sold[0] = Flux.range(0, tries).flatMap((i) -> {
				ReactiveStockService stock = instances.get(i % INSTANCES).getBean(ReactiveStockService.class);
				return locked ? stock.reserve(sku, 1) : stock.reserveWithoutLock(sku, 1);
			}, tries)
				// counted as each one ends, while the others still wait
				.doOnNext((reserved) -> maxThreads.accumulateAndGet(Thread.activeCount(), Math::max))
				.filter(Boolean::booleanValue)
				.count()
				.block(Duration.ofMinutes(2)));
			int over = (int) Math.max(0, sold[0] - INITIAL_STOCK);
			oversoldWithLock = locked ? over : oversoldWithLock;
			int moreThreads = maxThreads.get() - threadsBefore;
			rows.add(new Demo.Row("Stock reservation, " + (locked ? "Mono @DistributedLock" : "Mono, no lock"),
					INSTANCES + " instances, " + tries + " Mono tries in flight at once for " + INITIAL_STOCK + " units",
					sold[0] + " sold, " + over + " oversold" + (locked ? "; " + moreThreads
							+ ((moreThreads == 1) ? " thread" : " threads") + " more while they waited" : ""),
					millis));
		}
		return oversoldWithLock;
	}

	/** A new product with {@value Demo#INITIAL_STOCK} units, removed when the instances close. */
	private static String restockedSku(DemoInstances instances) {
		String sku = "sku-" + UUID.randomUUID();
		StockService stock0 = instances.get(0).getBean(StockService.class);
		instances.cleanUpAtClose(() -> stock0.remove(sku));
		stock0.restock(sku, INITIAL_STOCK);
		return sku;
	}

}
