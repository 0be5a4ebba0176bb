package io.github.distributedlock.sample;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.IntStream;

import reactor.core.publisher.Flux;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;

/**
 * The demo: starts {@value #INSTANCES} instances of the application (each its own Spring context and lock
 * client, as separate processes would be) on one Redis, runs {@value #THREADS} threads in each, and
 * compares each scenario with and without its lock. It deletes what it wrote to Redis when it ends (and all
 * of it expires anyway, see {@link SampleData}).
 */
final class Demo {

	static final int INSTANCES = 3;

	static final int THREADS = 4;

	static final int INITIAL_STOCK = 100;

	static final int PURCHASES_PER_THREAD = 20;

	static final int REPRICINGS = 20;

	/** One line of the table. */
	record Row(String scenario, String setup, String outcome, long millis) {
	}

	/** What the demo measured. */
	record Report(List<Row> rows, int oversoldWithLock, int oversoldWithoutLock, int oversoldReactive, int lotteryDraws,
			long lotteryStoredDraws, long tornReadsWithLock, long tornReadsWithoutLock, long readsWithLock,
			PartnerApiDemo.Result partner, FencingDemo.Result fenced) {
	}

	private Demo() {
	}

	static Report run(String[] args, PrintStream out) throws Exception {
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		// run at the end, while the instances are still open: the demo's keys are not left in the user's Redis
		List<Runnable> cleanUp = new ArrayList<>();
		try {
			boolean serve = Arrays.asList(args).contains("--serve");
			for (int i = 0; i < INSTANCES; i++) {
				instances.add(startInstance(args, serve && i == 0));
			}
			// the scenarios log as they run (the fencing scenario's holder loses its lease on purpose, a WARN each
			// time): the table comes after all of it, title included, so no log line lands inside it
			out.printf("%nRunning the demo's scenarios; the fencing scenario's holder overruns its lease on purpose, "
					+ "so its two \"was lost\" WARNs are expected%n");
			List<Row> rows = new ArrayList<>();
			int[] oversold = new int[2];
			for (boolean locked : new boolean[] { true, false }) {
				String sku = "sku-" + UUID.randomUUID();
				StockService stock0 = instances.get(0).getBean(StockService.class);
				cleanUp.add(() -> stock0.remove(sku));
				stock0.restock(sku, INITIAL_STOCK);
				AtomicInteger sold = new AtomicInteger();
				long millis = timed(() -> onEveryThread(instances, (instance) -> {
					StockService stock = instance.getBean(StockService.class);
					for (int i = 0; i < PURCHASES_PER_THREAD; i++) {
						if (locked ? stock.reserve(sku, 1) : stock.reserveWithoutLock(sku, 1)) {
							sold.incrementAndGet();
						}
					}
				}, THREADS));
				int over = Math.max(0, sold.get() - INITIAL_STOCK);
				oversold[locked ? 0 : 1] = over;
				rows.add(new Row("Stock reservation" + (locked ? ", @DistributedLock" : ", no lock"),
						INSTANCES + " x " + THREADS + " buyers, " + INSTANCES * THREADS * PURCHASES_PER_THREAD
								+ " tries for " + INITIAL_STOCK + " units",
						sold.get() + " sold, " + over + " oversold", millis));
			}

			int oversoldReactive = reactiveReservations(instances, cleanUp, rows);

			String drawId = "demo-" + UUID.randomUUID();
			List<String> tickets = IntStream.rangeClosed(1, 500).mapToObj((i) -> "ticket-" + i).toList();
			AtomicInteger draws = new AtomicInteger();
			cleanUp.add(() -> instances.get(0).getBean(LotteryService.class).forget(drawId));
			long lotteryMillis = timed(() -> onEveryThread(instances, (instance) -> instance.getBean(LotteryService.class)
				.draw(drawId, tickets, 3)
				.ifPresent((winners) -> draws.incrementAndGet()), 1));
			long storedDraws = instances.get(0).getBean(LotteryService.class).storedDraws(drawId, 3);
			rows.add(new Row("Lottery draw, @DistributedLock SKIP", INSTANCES + " instances start it at once",
					draws.get() + " drew, " + (INSTANCES - draws.get()) + " skipped; " + storedDraws + " set of winners",
					lotteryMillis));

			long[] torn = new long[2];
			long readsLocked = 0;
			for (boolean locked : new boolean[] { true, false }) {
				String sku = "sku-" + UUID.randomUUID();
				PriceCatalogue writerCatalogue = instances.get(0).getBean(PriceCatalogue.class);
				cleanUp.add(() -> writerCatalogue.remove(sku));
				writerCatalogue.repriceWithoutLock(sku, 100);
				AtomicBoolean repricingDone = new AtomicBoolean();
				AtomicLong reads = new AtomicLong();
				AtomicLong tornReads = new AtomicLong();
				long millis = timed(() -> {
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
						onEveryThread(instances, (instance) -> {
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
				rows.add(new Row("Price catalogue" + (locked ? ", READ/WRITE locks" : ", no lock"),
						INSTANCES + " x " + THREADS + " readers, 1 writer x " + REPRICINGS + " repricings",
						reads.get() + " reads, " + tornReads.get() + " torn", millis));
			}
			PartnerApiDemo.Result partner = PartnerApiDemo.run(instances, rows);
			FencingDemo.Result fenced = null;
			for (boolean withToken : new boolean[] { true, false }) {
				long start = System.nanoTime();
				FencingDemo.Result result = FencingDemo.run(instances.get(0), instances.get(1), withToken);
				rows.add(new Row((withToken ? "Fenced stock, fencing token" : "Fenced stock, no token check"),
						"holder paused past its " + FencingDemo.LEASE_MILLIS + " ms lease, another instance writes",
						result.outcome(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
				fenced = withToken ? result : fenced;
			}
			out.printf("%nDemo: %d instances x %d threads on one Redis%n", INSTANCES, THREADS);
			print(rows, out);
			if (serve) {
				serveUntilClosed(instances.get(0), out);
			}
			return new Report(rows, oversold[0], oversold[1], oversoldReactive, draws.get(), storedDraws, torn[0], torn[1], readsLocked,
					partner, fenced);
		}
		finally {
			try {
				cleanUp.forEach(Runnable::run);
			}
			finally {
				for (ConfigurableApplicationContext instance : instances) {
					instance.close();
				}
			}
		}
	}

	/**
	 * The reservations again through {@link ReactiveStockService}: every try of every instance in flight at once,
	 * and no thread waits for the lock.
	 * @return how many units the locked run oversold
	 */
	private static int reactiveReservations(List<ConfigurableApplicationContext> instances, List<Runnable> cleanUp,
			List<Row> rows) throws Exception {
		int tries = INSTANCES * THREADS * PURCHASES_PER_THREAD;
		int oversoldWithLock = 0;
		for (boolean locked : new boolean[] { true, false }) {
			String sku = "sku-" + UUID.randomUUID();
			StockService stock0 = instances.get(0).getBean(StockService.class);
			cleanUp.add(() -> stock0.remove(sku));
			stock0.restock(sku, INITIAL_STOCK);
			int threadsBefore = Thread.activeCount();
			AtomicInteger maxThreads = new AtomicInteger(threadsBefore);
			long[] sold = new long[1];
			long millis = timed(() -> sold[0] = Flux.range(0, tries).flatMap((i) -> {
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
			rows.add(new Row("Stock reservation, " + (locked ? "Mono @DistributedLock" : "Mono, no lock"),
					INSTANCES + " instances, " + tries + " Mono tries in flight at once for " + INITIAL_STOCK + " units",
					sold[0] + " sold, " + over + " oversold" + (locked ? "; " + moreThreads
							+ ((moreThreads == 1) ? " thread" : " threads") + " more while they waited" : ""),
					millis));
		}
		return oversoldWithLock;
	}

	/** Keeps the web instance up, with Actuator, until it is closed (Ctrl-C). */
	private static void serveUntilClosed(ConfigurableApplicationContext instance, PrintStream out)
			throws InterruptedException {
		CountDownLatch closed = new CountDownLatch(1);
		instance.addApplicationListener((ContextClosedEvent event) -> closed.countDown());
		out.printf("%nActuator of instance 1: http://localhost:%s/actuator (distributedlocks, health, metrics);"
				+ " Ctrl-C stops%n", instance.getEnvironment().getProperty("local.server.port"));
		closed.await();
	}

	private static ConfigurableApplicationContext startInstance(String[] args, boolean web) {
		List<String> instanceArgs = new ArrayList<>(Arrays.asList(args));
		instanceArgs.remove("--demo");
		instanceArgs.remove("--serve");
		instanceArgs.add("--sample.lottery-on-startup=false");
		instanceArgs.add("--logging.level.root=WARN");
		instanceArgs.add("--logging.level.io.github.distributedlock.sample=WARN");
		return new SpringApplicationBuilder(SampleApplication.class)
			.web(web ? WebApplicationType.SERVLET : WebApplicationType.NONE)
			.logStartupInfo(false)
			.bannerMode(org.springframework.boot.Banner.Mode.OFF)
			.run(instanceArgs.toArray(String[]::new));
	}

	interface Work {

		void run(ConfigurableApplicationContext instance) throws Exception;

	}

	/**
	 * Runs {@code work} on {@code threads} threads of every instance, all released at once.
	 */
	static void onEveryThread(List<ConfigurableApplicationContext> instances, Work work, int threads)
			throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(instances.size() * threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> futures = new ArrayList<>();
			for (ConfigurableApplicationContext instance : instances) {
				for (int t = 0; t < threads; t++) {
					futures.add(pool.submit(() -> {
						start.await();
						work.run(instance);
						return null;
					}));
				}
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	interface Timed {

		void run() throws Exception;

	}

	static long timed(Timed work) throws Exception {
		long start = System.nanoTime();
		work.run();
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
	}

	static void print(List<Row> rows, PrintStream out) {
		List<Function<Row, String>> columns = List.of(Row::scenario, Row::setup, Row::outcome,
				(row) -> row.millis() + " ms");
		String[] headers = { "Scenario", "Setup", "Outcome", "Time" };
		int[] widths = new int[headers.length];
		for (int c = 0; c < headers.length; c++) {
			widths[c] = headers[c].length();
			for (Row row : rows) {
				widths[c] = Math.max(widths[c], columns.get(c).apply(row).length());
			}
		}
		StringBuilder line = new StringBuilder("|");
		StringBuilder rule = new StringBuilder("|");
		for (int c = 0; c < headers.length; c++) {
			line.append(' ').append(pad(headers[c], widths[c])).append(" |");
			rule.append('-').append("-".repeat(widths[c])).append("-|");
		}
		out.println(line);
		out.println(rule);
		for (Row row : rows) {
			StringBuilder cells = new StringBuilder("|");
			for (int c = 0; c < headers.length; c++) {
				cells.append(' ').append(pad(columns.get(c).apply(row), widths[c])).append(" |");
			}
			out.println(cells);
		}
		out.println();
	}

	private static String pad(String text, int width) {
		return text + " ".repeat(width - text.length());
	}

}
