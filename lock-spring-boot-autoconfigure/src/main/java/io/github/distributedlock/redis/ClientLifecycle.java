package io.github.distributedlock.redis;

import java.time.Duration;

import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;

import org.springframework.context.SmartLifecycle;

/**
 * The lifecycle half of {@link RedisLockClient}: its runs ({@link ClientRuns}), what it tells observers, and how it
 * starts, stops gracefully and closes in an application context. Its public methods are {@link RedisLockClient}'s
 * own (this class is not visible outside the package). Thread-safe.
 */
abstract class ClientLifecycle implements SmartLifecycle, AutoCloseable {

	/** The current run, and the restarts and the graceful stop. */
	final ClientRuns runs;

	ClientLifecycle(ClientRuns runs) {
		this.runs = runs;
	}

	/**
	 * Sets how long {@link #stop()} waits for running holders to release their locks before it releases what
	 * is left (default {@link RedisLockClient#DEFAULT_SHUTDOWN_TIMEOUT}).
	 * @param shutdownTimeout the grace period; zero releases at once; not negative
	 * @throws IllegalArgumentException if negative
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.runs.setShutdownTimeout(shutdownTimeout);
	}

	/**
	 * Sets what is told when a lock is acquired, released, lost or not renewed (see {@link LockObserver});
	 * {@link LockObserver#NONE} by default. Acquisitions and releases are also logged at DEBUG, losses at WARN.
	 * @param observer the observer; {@link LockObserver#of} combines several
	 */
	public void setLockObserver(LockObserver observer) {
		this.runs.setObserver(observer);
	}

	/**
	 * Tells whether release notifications arrive, for health checks and diagnostics; without them waiters
	 * still get their locks, but only when the holder's lease would end.
	 * @return {@code true} while the pub/sub subscription is up
	 */
	public boolean isListening() {
		return this.runs.current().notifications.isListening();
	}

	/**
	 * Releases every lock this client still holds at once, each with a warning naming the lock and its holder,
	 * and stops the watchdog and the subscription; those holders' releases then throw
	 * {@link LockLostException}, without a round trip. Idempotent. {@link #stop()} first gives running holders
	 * a grace period.
	 */
	@Override
	public void close() {
		this.runs.current().close();
	}

	/**
	 * Starts the client again after {@link #stop()} or {@link #close()} (an application context restarted, or
	 * restored from a checkpoint): with a new client id, renewal, listening and threads of its own; handles of
	 * the earlier run stay lost. Does nothing while the client is open: it is ready when constructed.
	 * @throws IllegalArgumentException if replica sync is on and can no longer be set up (see the constructor)
	 */
	@Override
	public void start() {
		this.runs.restart();
	}

	/**
	 * Stops the client gracefully: waits up to the {@linkplain #setShutdownTimeout(Duration) shutdown timeout}
	 * for the owners that hold locks to release them (they are renewed meanwhile, and released normally),
	 * then {@linkplain #close() closes} it, releasing what is left. In an application context this runs in
	 * phase {@link RedisLockClient#PHASE}, before the Redis connection factory stops; it blocks its phase while it waits.
	 */
	@Override
	public void stop() {
		this.runs.stop();
	}

	/**
	 * Tells whether the client is open.
	 * @return {@code false} once closed
	 */
	@Override
	public boolean isRunning() {
		return !this.runs.current().closed.get();
	}

	/**
	 * Returns {@link RedisLockClient#PHASE}.
	 * @return the lifecycle phase
	 */
	@Override
	public int getPhase() {
		return RedisLockClient.PHASE;
	}

}
