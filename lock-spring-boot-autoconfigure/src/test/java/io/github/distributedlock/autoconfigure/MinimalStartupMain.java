package io.github.distributedlock.autoconfigure;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application with only the lock auto-configuration on the local store, started by
 * {@link MinimalClassPathStartupTests} in a JVM whose class path lacks what the test class path brings besides
 * (Jackson, Gson). Its arguments are properties ({@code --distributed-lock.lease=30s}); it prints
 * {@code STARTED} and exits 0 once the context is up.
 */
@ImportAutoConfiguration(LocalLockAutoConfiguration.class)
public class MinimalStartupMain {

	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(MinimalStartupMain.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		try (ConfigurableApplicationContext context = application.run(args)) {
			System.out.println("STARTED");
		}
	}

}
