package io.github.distributedlock.sample;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;

/**
 * The demo: starts {@value #INSTANCES} instances of the application (each its own Spring context and lock
 * client, as separate processes would be; see {@link DemoInstances}) on one Redis, runs {@value #THREADS}
 * threads in each, and compares each scenario with and without its lock. It deletes what it wrote to Redis
 * when it ends (and all of it expires anyway, see {@link SampleData}).
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

	/**
	 * Runs every scenario, prints the table and, with {@code --serve}, keeps the first instance up until it is
	 * closed.
	 * @param args the application's arguments
	 * @param out where the table goes
	 * @return what the scenarios showed
	 * @throws Exception if an instance does not start or a scenario fails
	 */
	static Report run(String[] args, PrintStream out) throws Exception {
		boolean serve = Arrays.asList(args).contains("--serve");
		try (DemoInstances instances = DemoInstances.start(args, serve)) {
			// the scenarios log as they run (the fencing scenario's holder loses its lease on purpose, a WARN each
			// time): the table comes after all of it, title included, so no log line lands inside it
			out.printf("%nRunning the demo's scenarios; the fencing scenario's holder overruns its lease on purpose, "
					+ "so its two \"was lost\" WARNs are expected%n");
			List<Row> rows = new ArrayList<>();
			int[] oversold = StockDemo.reservations(instances, rows);
			int oversoldReactive = StockDemo.reactiveReservations(instances, rows);

			String drawId = "demo-" + UUID.randomUUID();
			List<String> tickets = IntStream.rangeClosed(1, 500).mapToObj((i) -> "ticket-" + i).toList();
			AtomicInteger draws = new AtomicInteger();
			LotteryService lottery0 = instances.get(0).getBean(LotteryService.class);
			instances.cleanUpAtClose(() -> lottery0.forget(drawId));
			long lotteryMillis = timed(() -> instances.onEveryThread((instance) -> instance.getBean(LotteryService.class)
				.draw(drawId, tickets, 3)
				.ifPresent((winners) -> draws.incrementAndGet()), 1));
			long storedDraws = lottery0.storedDraws(drawId, 3);
			rows.add(new Row("Lottery draw, @DistributedLock SKIP", INSTANCES + " instances start it at once",
					draws.get() + " drew, " + (INSTANCES - draws.get()) + " skipped; " + storedDraws + " set of winners",
					lotteryMillis));

			PriceCatalogueDemo.Result prices = PriceCatalogueDemo.run(instances, rows);
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
			DemoTable.print(rows, out);
			if (serve) {
				serveUntilClosed(instances.get(0), out);
			}
			return new Report(rows, oversold[0], oversold[1], oversoldReactive, draws.get(), storedDraws,
					prices.tornWithLock(), prices.tornWithoutLock(), prices.readsWithLock(), partner, fenced);
		}
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

	/** Work that {@link #timed} measures. */
	interface Timed {

		void run() throws Exception;

	}

	/**
	 * Runs {@code work} and measures it.
	 * @param work what to run
	 * @return the milliseconds it took
	 * @throws Exception what {@code work} threw
	 */
	static long timed(Timed work) throws Exception {
		long start = System.nanoTime();
		work.run();
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
	}

}
