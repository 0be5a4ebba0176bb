package io.github.distributedlock.docs;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;

/**
 * The documentation's snippets on testing code that takes locks, compiled (not run: see
 * {@code LocalLockStoreTests} and {@code SampleOnRedisContainerTests} for the tests that run).
 */
@SuppressWarnings("unused")
class TestingSnippets {

	// tag::local[]
	@SpringBootTest(properties = "distributed-lock.store=local")   // @DistributedLock still makes callers take turns
	class SeatReservationsTests {
	}
	// end::local[]

	// tag::testcontainers[]
	@SpringBootTest
	@Testcontainers(disabledWithoutDocker = true)   // skipped, not failed, where Docker is missing
	class OnRedisTests {
		@Container
		@ServiceConnection(name = "redis")
		static GenericContainer<?> redis = new GenericContainer<>("redis:7-alpine").withExposedPorts(6379);
	}
	// end::testcontainers[]

}
