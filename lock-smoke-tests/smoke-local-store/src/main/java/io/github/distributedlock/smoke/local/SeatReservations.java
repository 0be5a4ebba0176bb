package io.github.distributedlock.smoke.local;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.DistributedLock;

import org.springframework.stereotype.Service;

/**
 * Reserves seats, one reservation of a seat at a time; keeps count of the reservations (read, then written back:
 * without the lock concurrent reservations get lost) and of the most callers inside at once. Thread-safe through
 * its lock.
 */
@Service
public class SeatReservations {

	private final AtomicInteger inside = new AtomicInteger();

	private final AtomicInteger mostInside = new AtomicInteger();

	private volatile int reservations;

	/**
	 * Reserves a seat.
	 * @param seat the seat, such as {@code A1}
	 * @throws InterruptedException if interrupted while waiting for the lock or working
	 */
	@DistributedLock(name = "seat", key = "#seat", acquireTimeout = "30s")
	public void reserve(String seat) throws InterruptedException {
		this.mostInside.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
		try {
			int reserved = this.reservations;
			Thread.sleep(2);   // the booking system's answer
			this.reservations = reserved + 1;
		}
		finally {
			this.inside.decrementAndGet();
		}
	}

	/**
	 * Returns how many reservations were made.
	 * @return the count
	 */
	public int reservations() {
		return this.reservations;
	}

	/**
	 * Returns the most callers that were inside {@link #reserve} at once.
	 * @return 1 when they took turns
	 */
	public int mostInside() {
		return this.mostInside.get();
	}

}
