package io.github.distributedlock.smoke.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A WebFlux application: a reactive controller in front of a locked {@code Mono} method and the reactive template.
 */
@SpringBootApplication
public class ReactiveApplication {

	/**
	 * Runs the application until it is stopped.
	 * @param args the application's arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(ReactiveApplication.class, args);
	}

}
