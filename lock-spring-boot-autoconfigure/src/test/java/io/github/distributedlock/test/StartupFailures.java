package io.github.distributedlock.test;

import java.util.List;
import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.logging.LoggingSystem;

import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Starts a Spring Boot application that is expected to fail, as {@code java -jar} would, so that Spring Boot runs
 * the failure analyzers of {@code spring.factories} and prints their report on the console: what a test of a
 * failure report captures. Leaves the test JVM's logging as it is (the report goes to the console either way).
 */
public final class StartupFailures {

	private StartupFailures() {
	}

	/**
	 * Runs an application without a web server.
	 * @param properties its default properties
	 * @param sources its configurations (the first is the primary source)
	 * @return what the startup threw, {@code null} if it started (then it is left running)
	 */
	public static Throwable run(Map<String, Object> properties, Class<?>... sources) {
		SpringApplication application = new SpringApplication(sources[0]);
		application.addPrimarySources(List.of(sources));
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setDefaultProperties(properties);
		System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
		try {
			return catchThrowable(application::run);
		}
		finally {
			System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
		}
	}

}
