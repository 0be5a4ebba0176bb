package io.github.distributedlock.smoke.worker;

import java.time.Duration;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A worker as users deploy one: no web server, a {@code @Scheduled} job that one instance at a time runs. It runs
 * for {@code smoke.run-for} (6 s by default), then exits with Spring Boot's exit code.
 */
@SpringBootApplication
@EnableScheduling
public class WorkerApplication {

	/**
	 * Runs the worker.
	 * @param args the application's arguments
	 * @throws InterruptedException if interrupted while it runs
	 */
	public static void main(String[] args) throws InterruptedException {
		ConfigurableApplicationContext context = SpringApplication.run(WorkerApplication.class, args);
		Duration runFor = context.getEnvironment().getProperty("smoke.run-for", Duration.class, Duration.ofSeconds(6));
		Thread.sleep(runFor.toMillis());
		System.exit(SpringApplication.exit(context));
	}

}
