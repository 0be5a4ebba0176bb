package io.github.distributedlock.smoke.leader;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An application whose instances elect one leader with Spring Integration, on the starter's {@code LockRegistry}.
 */
@SpringBootApplication
public class LeaderApplication {

	/**
	 * Runs the application until it is stopped.
	 * @param args the application's arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(LeaderApplication.class, args);
	}

}
