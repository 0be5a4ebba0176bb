package io.github.distributedlock.integration;

import java.time.Duration;

import io.github.distributedlock.integration.LeaderApplication.LeaderEvents;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * A {@link LeaderApplication} in a JVM of its own, to be killed with SIGKILL: prints {@code STARTED}, then
 * {@code GRANTED} or {@code REVOKED} for each leader event, and runs until killed. Arguments: Redis port, role,
 * lease in ms.
 */
public final class LeaderMain {

	private LeaderMain() {
	}

	public static void main(String[] args) throws Exception {
		ConfigurableApplicationContext instance = LeaderApplication.start(Integer.parseInt(args[0]), args[1],
				Duration.ofMillis(Long.parseLong(args[2])));
		LeaderEvents events = instance.getBean(LeaderEvents.class);
		events.listener = (event) -> {
			System.out.println(LeaderEvents.name(event));
			System.out.flush();
		};
		// events published before the listener was set
		events.events.forEach((event) -> System.out.println(LeaderEvents.name(event)));
		System.out.println("STARTED");
		System.out.flush();
		// run until killed: the parent never writes to our standard input, which ends only if the parent died
		System.in.read();
		instance.close();
	}

}
