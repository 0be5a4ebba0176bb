package io.github.distributedlock.sample;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The demo's application instances: {@value Demo#INSTANCES} Spring contexts in this JVM, each with its own lock
 * client as separate processes would have, on one Redis; the work the scenarios run on threads of every instance
 * at once; and the clean-up of what they wrote to Redis, run while the instances are still open, when they close.
 * Not thread-safe: the demo's main thread starts, uses and closes it (the work runs on threads of its own).
 */
final class DemoInstances implements AutoCloseable {

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	/** Run at {@link #close()} before the contexts close: the demo's keys are not left in the user's Redis. */
	private final List<Runnable> cleanUp = new ArrayList<>();

	private DemoInstances() {
	}

	/**
	 * Starts the instances, quietly (WARN logs, no banner, no lottery on start-up).
	 * @param args the application's arguments ({@code --demo} and {@code --serve} are left out)
	 * @param serve whether the first instance is a web application (Actuator on {@code server.port})
	 * @return the instances; close them when done
	 */
	static DemoInstances start(String[] args, boolean serve) {
		DemoInstances instances = new DemoInstances();
		try {
			for (int i = 0; i < Demo.INSTANCES; i++) {
				instances.contexts.add(startInstance(args, serve && i == 0));
			}
			return instances;
		}
		catch (RuntimeException ex) {
			instances.close();
			throw ex;
		}
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
			.bannerMode(Banner.Mode.OFF)
			.run(instanceArgs.toArray(String[]::new));
	}

	/**
	 * One instance.
	 * @param index 0 to {@link #size()} - 1
	 * @return its context
	 */
	ConfigurableApplicationContext get(int index) {
		return this.contexts.get(index);
	}

	/**
	 * How many instances there are.
	 * @return {@value Demo#INSTANCES}
	 */
	int size() {
		return this.contexts.size();
	}

	/**
	 * Runs {@code task} when the instances close, before their contexts close, after the tasks registered
	 * before it.
	 * @param task what removes a scenario's keys from Redis
	 */
	void cleanUpAtClose(Runnable task) {
		this.cleanUp.add(task);
	}

	/**
	 * Runs {@code work} on {@code threads} threads of every instance, all released at once, and waits for all of
	 * them (5 minutes at most each).
	 * @param work what each thread runs with its instance
	 * @param threads the threads per instance
	 * @throws Exception what a thread threw (wrapped in an {@link java.util.concurrent.ExecutionException}), or
	 * a timeout
	 */
	void onEveryThread(Work work, int threads) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(this.contexts.size() * threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> futures = new ArrayList<>();
			for (ConfigurableApplicationContext instance : this.contexts) {
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

	/** Runs the clean-up tasks, then closes every instance. */
	@Override
	public void close() {
		try {
			this.cleanUp.forEach(Runnable::run);
		}
		finally {
			for (ConfigurableApplicationContext instance : this.contexts) {
				instance.close();
			}
		}
	}

	/** What one thread of {@link #onEveryThread} runs. */
	interface Work {

		void run(ConfigurableApplicationContext instance) throws Exception;

	}

}
