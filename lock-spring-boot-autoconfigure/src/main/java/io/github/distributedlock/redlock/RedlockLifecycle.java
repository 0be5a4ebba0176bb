package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.redis.RedisLockClient;

import org.springframework.context.SmartLifecycle;

/**
 * The lifecycle half of {@link RedlockLockClient}: its graceful stop in an application context
 * ({@link RedlockShutdownGrace}), in the Redis store's phase. Thread-safe.
 */
abstract class RedlockLifecycle implements SmartLifecycle {

	/** Counts the acquisitions under way, and waits for them and the holders at the stop. */
	final RedlockShutdownGrace shutdownGrace;

	private volatile Duration shutdownTimeout = RedisLockClient.DEFAULT_SHUTDOWN_TIMEOUT;

	private volatile boolean running = true;

	RedlockLifecycle(RedlockShutdownGrace shutdownGrace) {
		this.shutdownGrace = shutdownGrace;
	}

	/** Tells whether the client was closed. */
	abstract boolean isClosed();

	/**
	 * Sets how long {@link #stop()} waits for the owners that hold or are acquiring locks.
	 * @param shutdownTimeout the longest wait ({@code distributed-lock.shutdown-timeout}); zero does not wait
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout must not be null");
	}

	/**
	 * Marks the client running again after {@link #stop()}; it was never closed by a stop.
	 */
	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * Stops gracefully: waits up to the {@linkplain #setShutdownTimeout(Duration) shutdown timeout} for the owners
	 * that hold locks of this client to release them (renewed meanwhile) and for acquisitions under way to end.
	 * The client stays open: {@link RedlockLockClient#close()} (when its bean is destroyed) releases what is
	 * still held. Blocks its lifecycle phase, {@link RedisLockClient#PHASE}, while it waits.
	 */
	@Override
	public void stop() {
		this.shutdownGrace.await(this.shutdownTimeout);
		this.running = false;
	}

	/**
	 * Tells whether the client is running: from its creation until {@link #stop()} or
	 * {@link RedlockLockClient#close()}.
	 * @return {@code false} once stopped or closed
	 */
	@Override
	public boolean isRunning() {
		return this.running && !isClosed();
	}

	/**
	 * Returns {@link RedisLockClient#PHASE}: stopped after the web server and the task executors, as the Redis
	 * store's client is.
	 * @return the lifecycle phase
	 */
	@Override
	public int getPhase() {
		return RedisLockClient.PHASE;
	}

}
