package io.github.distributedlock.docs;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The documentation's snippets on Spring Integration, compiled (not run: see {@code LeaderElectionTests} and
 * {@code DistributedLockRegistryTests} in the library for the tests that run).
 */
@SuppressWarnings("unused")
class IntegrationSnippets {

	// tag::leader[]
	@Configuration
	class LeaderElection {

		@Bean   // the starter's LockRegistry: one leader of "billing" across every instance
		LockRegistryLeaderInitiator billingLeader(LockRegistry<?> lockRegistry) {
			LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(lockRegistry);
			initiator.setHeartBeatMillis(500);   // how often the leader checks that its lock is still its own
			return initiator;                    // the role ("leader" by default) is the lock key
		}

		@EventListener
		void granted(OnGrantedEvent event) { /* start leading */ }

		@EventListener
		void revoked(OnRevokedEvent event) { /* stop leading: closed, stopped, or the lock was lost */ }
	}
	// end::leader[]

	// tag::registry[]
	void registry(LockRegistry<?> lockRegistry) throws InterruptedException {
		Lock lock = lockRegistry.obtain("invoice:42");    // the same lock as lockTemplate.getLock("invoice:42")
		if (lock.tryLock(5, TimeUnit.SECONDS)) {
			try { /* ... */ } finally { lock.unlock(); }
		}
		DistributedLock withLease = (DistributedLock) lockRegistry.obtain("report");
		withLease.lock(Duration.ofMinutes(2));             // a lease of its own, renewed while held
		withLease.unlock();
	}
	// end::registry[]

}
