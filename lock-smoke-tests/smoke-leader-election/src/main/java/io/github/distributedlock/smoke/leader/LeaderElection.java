package io.github.distributedlock.smoke.leader;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The leader election as docs/spring-integration.md shows it: one leader of the role {@code billing} across every
 * instance; each instance logs when it is granted and revoked the leadership.
 */
@Configuration(proxyBeanMethods = false)
class LeaderElection {

	private static final Logger logger = LoggerFactory.getLogger(LeaderElection.class);

	private final String instance;

	LeaderElection(@Value("${smoke.instance:leader}") String instance) {
		this.instance = instance;
	}

	@Bean
	LockRegistryLeaderInitiator billingLeader(LockRegistry<?> lockRegistry) {
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(lockRegistry,
				new DefaultCandidate(this.instance, "billing"));
		initiator.setHeartBeatMillis(200);
		return initiator;
	}

	@EventListener
	void granted(OnGrantedEvent event) {
		logger.info("leadership of {} granted to {}", event.getRole(), this.instance);
	}

	@EventListener
	void revoked(OnRevokedEvent event) {
		logger.info("leadership of {} revoked from {}", event.getRole(), this.instance);
	}

}
