package io.github.distributedlock.smoke.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.health.registry.ReactiveHealthContributorRegistry;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Redlock-only application ({@code distributed-lock.store=redlock}, nothing under {@code spring.data.redis}):
 * once {@code smoke.instances} instances (1 by default) have started, four threads each add to a counter five times
 * through a {@code @DistributedLock} method; then it logs its health as Actuator's health endpoint would compose it
 * (each contributor, one line each) and exits with Spring Boot's exit code. Spring Boot's {@code redis} health
 * indicator would judge it by the default {@code localhost:6379}, a server it never uses: if that indicator is there,
 * the application says so and exits with 1 without asking it.
 */
@SpringBootApplication
public class RedlockApplication {

	private static final Logger logger = LoggerFactory.getLogger(RedlockApplication.class);

	/** The threads, and how many times each adds. */
	static final int THREADS = 4;

	static final int ADDS = 5;

	/**
	 * Runs the application.
	 * @param args the application's arguments
	 * @throws InterruptedException if interrupted while the threads run
	 * @throws ExecutionException if a thread failed
	 */
	public static void main(String[] args) throws InterruptedException, ExecutionException {
		ConfigurableApplicationContext context = SpringApplication.run(RedlockApplication.class, args);
		awaitInstances(context);
		Counter counter = context.getBean(Counter.class);
		ExecutorService threads = Executors.newFixedThreadPool(THREADS);
		List<Future<?>> runs = new ArrayList<>();
		for (int i = 0; i < THREADS; i++) {
			runs.add(threads.submit(() -> {
				for (int n = 0; n < ADDS; n++) {
					counter.add();
				}
				return null;
			}));
		}
		for (Future<?> run : runs) {
			run.get();
		}
		threads.shutdown();
		// Spring Boot names its redis contributor so, blocking or reactive (Lettuce's factory is both)
		if (context.containsBean("redisHealthIndicator") || context.containsBean("redisHealthContributor")) {
			logger.error("Spring Boot's redis health contributor is on: it would judge this Redlock-only application "
					+ "by localhost:6379, which it never uses");
			SpringApplication.exit(context);
			System.exit(1);
		}
		logHealth(context);
		System.exit(SpringApplication.exit(context));
	}

	/**
	 * One line per health indicator, blocking and reactive, as the health endpoint composes them:
	 * {@code health <name>: <status> <details>}.
	 */
	private static void logHealth(ConfigurableApplicationContext context) {
		context.getBean(HealthContributorRegistry.class).stream().forEach((entry) -> {
			if (entry.contributor() instanceof HealthIndicator indicator) {
				log(entry.name(), indicator.health(true));
			}
		});
		context.getBeanProvider(ReactiveHealthContributorRegistry.class).ifAvailable((registry) -> registry.stream()
			.forEach((entry) -> {
				if (entry.contributor() instanceof ReactiveHealthIndicator indicator) {
					log(entry.name(), indicator.health(true).block(Duration.ofSeconds(10)));
				}
			}));
	}

	private static void log(String name, Health health) {
		logger.info("health {}: {} {}", name, health.getStatus(), health.getDetails());
	}

	/**
	 * Counts this instance as started on the checker and waits (at most 60 s) for the others: the instances then add
	 * at the same time, so that their adds contend for the lock, whichever JVM started faster.
	 */
	private static void awaitInstances(ConfigurableApplicationContext context) throws InterruptedException {
		int instances = context.getEnvironment().getProperty("smoke.instances", Integer.class, 1);
		Checker checker = context.getBean(Checker.class);
		checker.redis().incr("smoke:started");
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (Long.parseLong(checker.redis().get("smoke:started")) < instances) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The other instances did not start within 60 s");
			}
			Thread.sleep(20);
		}
	}

}
