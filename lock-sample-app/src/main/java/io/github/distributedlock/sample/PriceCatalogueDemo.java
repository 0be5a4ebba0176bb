package io.github.distributedlock.sample;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.github.distributedlock.sample.Demo.INSTANCES;
import static io.github.distributedlock.sample.Demo.REPRICINGS;
import static io.github.distributedlock.sample.Demo.THREADS;

/**
 * The demo's price catalogue: one writer on the first instance reprices a product {@value Demo#REPRICINGS}
 * times while {@value Demo#THREADS} readers on every instance read it, with the read/write locks and without;
 * a read that sees a new net amount with an old gross one is torn. Each run adds its row to the table.
 */
final class PriceCatalogueDemo {

	/**
	 * What the two runs showed.
	 * @param tornWithLock the torn reads with the locks (none expected)
	 * @param tornWithoutLock the torn reads without them
	 * @param readsWithLock the reads with the locks
	 */
	record Result(long tornWithLock, long tornWithoutLock, long readsWithLock) {
	}

	private PriceCatalogueDemo() {
	}

	/**
	 * Runs the repricing with the locks, then without.
	 * @param instances the demo's instances
	 * @param rows the table, two rows added
	 * @return what the runs showed
	 * @throws Exception if the writer or a reader failed
	 */
	static Result run(DemoInstances instances, List<Demo.Row> rows) throws Exception {
		long[] torn = new long[2];
		long readsLocked = 0;
		for (boolean locked : new boolean[] { true, false }) {
			String sku = "sku-" + UUID.randomUUID();
			PriceCatalogue writerCatalogue = instances.get(0).getBean(PriceCatalogue.class);
			instances.cleanUpAtClose(() -> writerCatalogue.remove(sku));
			writerCatalogue.repriceWithoutLock(sku, 100);
			AtomicBoolean repricingDone = new AtomicBoolean();
			AtomicLong reads = new AtomicLong();
			AtomicLong tornReads = new AtomicLong();
			long millis = Demo.timed(() -> {
				ExecutorService writer = Executors.newSingleThreadExecutor();
				try {
					Future<?> repricing = writer.submit(() -> {
						for (int i = 1; i <= REPRICINGS; i++) {
							if (locked) {
								writerCatalogue.reprice(sku, 100 + i * 10L);
							}
							else {
								writerCatalogue.repriceWithoutLock(sku, 100 + i * 10L);
							}
						}
						repricingDone.set(true);
						return null;
					});
					instances.onEveryThread((instance) -> {
						PriceCatalogue catalogue = instance.getBean(PriceCatalogue.class);
						while (!repricingDone.get()) {
							PriceCatalogue.Price price = locked ? catalogue.read(sku) : catalogue.readWithoutLock(sku);
							reads.incrementAndGet();
							if (!price.consistent()) {
								tornReads.incrementAndGet();
							}
						}
					}, THREADS);
					repricing.get();
				}
				finally {
					writer.shutdownNow();
				}
			});
			torn[locked ? 0 : 1] = tornReads.get();
			if (locked) {
				readsLocked = reads.get();
			}
			rows.add(new Demo.Row("Price catalogue" + (locked ? ", READ/WRITE locks" : ", no lock"),
					INSTANCES + " x " + THREADS + " readers, 1 writer x " + REPRICINGS + " repricings",
					reads.get() + " reads, " + tornReads.get() + " torn", millis));
		}
		return new Result(torn[0], torn[1], readsLocked);
	}

}
