package io.github.distributedlock.smoke.webmvc;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A servlet web application with Actuator: a controller in front of a locked service.
 */
@SpringBootApplication
public class WebApplication {

	/**
	 * Runs the application until it is stopped.
	 * @param args the application's arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(WebApplication.class, args);
	}

}
