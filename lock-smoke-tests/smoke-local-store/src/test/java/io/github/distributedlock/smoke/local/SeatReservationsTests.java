package io.github.distributedlock.smoke.local;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.distributedlock.smoke.FreePort;
import io.github.distributedlock.smoke.ReadmeYaml;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user's own test suite as docs/testing.md shows it: {@code @SpringBootTest} on the local store, with the
 * README's properties, and no Redis: Spring Data Redis points at a port where nothing listens, so a lock that
 * went to Redis would fail.
 */
@SpringBootTest(properties = { "distributed-lock.store=local",
		"spring.config.additional-location=file:" + ReadmeYaml.FILE })
class SeatReservationsTests {

	@Autowired
	private SeatReservations reservations;

	@Autowired
	private Environment environment;

	@BeforeAll
	static void writeTheReadmeProperties() {
		ReadmeYaml.write();
	}

	@DynamicPropertySource
	static void noRedis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> "127.0.0.1");
		registry.add("spring.data.redis.port", FreePort::next);
	}

	@Test
	void callersTakeTurnsAndNoReservationIsLost() throws Exception {
		int threads = 8;
		int each = 5;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> callers = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				callers.add(pool.submit(() -> {
					start.await();
					for (int n = 0; n < each; n++) {
						this.reservations.reserve("A1");
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> caller : callers) {
				caller.get();
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(this.reservations.mostInside()).as("callers inside at once").isEqualTo(1);
		assertThat(this.reservations.reservations()).isEqualTo(threads * each);
	}

	@Test
	void theReadmePropertiesAreRead() {
		assertThat(ReadmeYaml.keys()).isNotEmpty()
			.allSatisfy((key) -> assertThat(this.environment.containsProperty(key)).as(key).isTrue());
	}

}
