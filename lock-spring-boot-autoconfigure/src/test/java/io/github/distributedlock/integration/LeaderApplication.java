package io.github.distributedlock.integration;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.autoconfigure.DistributedLockIntegrationAutoConfiguration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * An application instance that takes part in a leader election with Spring Integration's
 * {@link LockRegistryLeaderInitiator} on the auto-configured {@link LockRegistry}, as users write it, and records
 * its leader events. Started in the test JVM, or in a JVM of its own by {@link LeaderMain}.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class,
		DistributedLockIntegrationAutoConfiguration.class })
class LeaderApplication {

	/** How often the leader checks its lock, and the longest a candidate waits for it in one try. */
	static final long HEART_BEAT_MILLIS = 200;

	@Bean
	LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> lockRegistry, @Value("${leader.role}") String role) {
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(lockRegistry,
				new DefaultCandidate(UUID.randomUUID().toString(), role));
		initiator.setHeartBeatMillis(HEART_BEAT_MILLIS);
		return initiator;
	}

	@Bean
	LeaderEvents leaderEvents() {
		return new LeaderEvents();
	}

	/**
	 * Starts an instance.
	 * @param port the Redis port on 127.0.0.1
	 * @param role the role the instances elect a leader of (the lock key)
	 * @param lease the lease of the locks
	 * @return the running instance; the caller closes it
	 */
	static ConfigurableApplicationContext start(int port, String role, Duration lease) {
		return new SpringApplicationBuilder(LeaderApplication.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			// a command timeout below a third of the lease, as the startup check advises
			.properties("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
					"spring.data.redis.timeout=" + lease.dividedBy(4).toMillis() + "ms",
					"distributed-lock.lease=" + lease.toMillis() + "ms", "leader.role=" + role)
			.run();
	}

	/** Tells whether an instance is the leader now. */
	static boolean isLeader(ConfigurableApplicationContext instance) {
		return instance.getBean(LockRegistryLeaderInitiator.class).getContext().isLeader();
	}

	/** Returns the leader events an instance published so far. */
	static List<AbstractLeaderEvent> events(ConfigurableApplicationContext instance) {
		return instance.getBean(LeaderEvents.class).events;
	}

	/** Counts an instance's leader events of one kind. */
	static long count(ConfigurableApplicationContext instance, Class<? extends AbstractLeaderEvent> kind) {
		return events(instance).stream().filter(kind::isInstance).count();
	}

	/** Records the leader events of an instance, and tells a listener of each (the child JVM prints them). */
	static final class LeaderEvents implements ApplicationListener<AbstractLeaderEvent> {

		final List<AbstractLeaderEvent> events = new CopyOnWriteArrayList<>();

		volatile Consumer<AbstractLeaderEvent> listener = (event) -> {
		};

		@Override
		public void onApplicationEvent(AbstractLeaderEvent event) {
			this.events.add(event);
			this.listener.accept(event);
		}

		static String name(AbstractLeaderEvent event) {
			if (event instanceof OnGrantedEvent) {
				return "GRANTED";
			}
			return (event instanceof OnRevokedEvent) ? "REVOKED" : event.getClass().getSimpleName();
		}

	}

}
