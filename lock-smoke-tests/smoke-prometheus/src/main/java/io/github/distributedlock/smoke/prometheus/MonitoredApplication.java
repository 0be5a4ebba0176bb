package io.github.distributedlock.smoke.prometheus;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A servlet web application with Actuator and Micrometer's Prometheus registry: its locks are taken, contended and
 * lost on request ({@link WorkController}), and {@code /actuator/prometheus} exports their meters.
 */
@SpringBootApplication
public class MonitoredApplication {

	/**
	 * Runs the application until it is stopped.
	 * @param args the application's arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(MonitoredApplication.class, args);
	}

}
