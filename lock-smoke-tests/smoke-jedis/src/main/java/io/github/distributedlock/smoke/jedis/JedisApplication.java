package io.github.distributedlock.smoke.jedis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application on Jedis: four threads each add to a counter five times through the template, then it exits with
 * Spring Boot's exit code.
 */
@SpringBootApplication
public class JedisApplication {

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
		ConfigurableApplicationContext context = SpringApplication.run(JedisApplication.class, args);
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

}
