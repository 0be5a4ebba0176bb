package io.github.distributedlock.smoke.local;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The application whose own tests run on the local store: a seat reservation service.
 */
@SpringBootApplication
public class SeatApplication {

	/**
	 * Runs the application.
	 * @param args the application's arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(SeatApplication.class, args);
	}

}
