package io.github.distributedlock.smoke.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * An application on {@code distributed-lock.store=redlock}: once {@code smoke.instances} instances (1 by default)
 * have started, four threads each add to a counter five times through a {@code @DistributedLock} method, then it
 * exits with Spring Boot's exit code.
 */
@SpringBootApplication
public class RedlockApplication {

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
		System.exit(SpringApplication.exit(context));
	}

	/**
	 * Counts this instance as started on the checker and waits (at most 60 s) for the others: the instances then add
	 * at the same time, so that their adds contend for the lock, whichever JVM started faster.
	 */
	private static void awaitInstances(ConfigurableApplicationContext context) throws InterruptedException {
		int instances = context.getEnvironment().getProperty("smoke.instances", Integer.class, 1);
		StringRedisTemplate checker = context.getBean(StringRedisTemplate.class);
		checker.opsForValue().increment("smoke:started");
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (Long.parseLong(checker.opsForValue().get("smoke:started")) < instances) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The other instances did not start within 60 s");
			}
			Thread.sleep(20);
		}
	}

}
