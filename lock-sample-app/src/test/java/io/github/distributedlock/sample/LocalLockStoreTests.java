package io.github.distributedlock.sample;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.local.LocalLockClient;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a user unit-tests a service that takes locks, without Redis: {@code distributed-lock.store=local} puts
 * the locks in the test's JVM, with the same semantics inside it, so {@code @DistributedLock} still makes
 * concurrent callers take turns (and still lets a call {@code SKIP} while another holds the lock).
 */
@SpringBootTest(properties = "distributed-lock.store=local")
class LocalLockStoreTests {

	@Autowired
	private SeatReservations seats;

	@Autowired
	private ApplicationContext context;

	@Test
	void runsOnTheLocalStoreWithoutRedis() {
		assertThat(this.context.getBeansOfType(LocalLockClient.class)).hasSize(1);
		assertThat(this.context.getBeansOfType(RedisConnectionFactory.class)).isEmpty();
	}

	@Test
	void concurrentBookingsOfOneSeatLetExactlyOneCustomerHaveIt() throws Exception {
		int customers = 8;
		ExecutorService pool = Executors.newFixedThreadPool(customers);
		CountDownLatch start = new CountDownLatch(1);
		try {
			Future<?>[] bookings = new Future<?>[customers];
			for (int i = 0; i < customers; i++) {
				String customer = "customer-" + i;
				bookings[i] = pool.submit(() -> {
					start.await();
					return this.seats.book("12A", customer);
				});
			}
			start.countDown();
			int booked = 0;
			for (Future<?> booking : bookings) {
				booked += Boolean.TRUE.equals(booking.get(30, TimeUnit.SECONDS)) ? 1 : 0;
			}
			assertThat(booked).isEqualTo(1);
			assertThat(this.seats.bookings()).hasSize(1);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aReportSkipsWhileAnotherCallHoldsItsLock() throws Exception {
		CountDownLatch inside = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		ExecutorService pool = Executors.newSingleThreadExecutor();
		try {
			Future<Optional<String>> first = pool.submit(() -> this.seats.report(() -> {
				inside.countDown();
				await(finish);
			}));
			assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(this.seats.report(() -> { })).as("skipped: the first report holds the lock").isEmpty();
			finish.countDown();
			assertThat(first.get(10, TimeUnit.SECONDS)).hasValueSatisfying((report) -> assertThat(report).startsWith("token "));
		}
		finally {
			pool.shutdownNow();
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** The test's application: the service under test and the auto-configuration, without Spring Data Redis's. */
	@SpringBootConfiguration
	@EnableAutoConfiguration(exclude = DataRedisAutoConfiguration.class)
	@Import(SeatReservations.class)
	static class TestApplication {

	}

	/**
	 * A user's service: seat bookings checked and written in two steps, which lose a booking unless a lock makes
	 * the callers of one seat take turns.
	 */
	static class SeatReservations {

		private final Map<String, String> bookings = new ConcurrentHashMap<>();

		@DistributedLock(name = "seat", key = "#seat")
		public boolean book(String seat, String customer) {
			if (this.bookings.containsKey(seat)) {
				return false;
			}
			Thread.yield(); // the window in which an unguarded second booking slips in
			this.bookings.put(seat, customer);
			return true;
		}

		@DistributedLock(name = "seat-report", acquireTimeout = "0", onFailure = OnLockFailure.SKIP)
		public Optional<String> report(Runnable whileHeld) {
			whileHeld.run();
			return Optional.of("token " + LockContext.current().fencingToken() + ": " + this.bookings);
		}

		public Map<String, String> bookings() {
			return Map.copyOf(this.bookings);
		}

	}

}
