package io.github.distributedlock.redis;

import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

import io.github.distributedlock.core.LockObserver;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The runs of one {@link RedisLockClient}: the {@link ClientParts} of the current run, a new run (with a new client
 * id) when the client starts again after a stop, and the graceful stop that waits for running holders before it
 * closes the run. What the parts of every run share (connections, key prefix, replica sync settings, observer,
 * shutdown timeout) lives here. Thread-safe.
 */
final class ClientRuns {

	private final RedisConnectionFactory connectionFactory;

	private final String keyPrefix;

	private final ReleaseChannels channels;

	private final int syncReplicas;

	private final Duration syncTimeout;

	/** The parts of the current run: made anew by {@link #restart()} after a {@link #stop()}. */
	private volatile ClientParts parts;

	private volatile LockObserver observer = LockObserver.NONE;

	private volatile Duration shutdownTimeout = RedisLockClient.DEFAULT_SHUTDOWN_TIMEOUT;

	/**
	 * Starts the first run.
	 * @throws IllegalArgumentException if the replica sync settings are out of range (see {@link ReplicaSync#of})
	 */
	ClientRuns(RedisConnectionFactory connectionFactory, String keyPrefix, ReleaseChannels channels, int syncReplicas,
			Duration syncTimeout) {
		this.connectionFactory = connectionFactory;
		this.keyPrefix = keyPrefix;
		this.channels = channels;
		this.syncReplicas = syncReplicas;
		this.syncTimeout = syncTimeout;
		this.parts = newParts();
	}

	/** Makes the parts of a run, under a new client id: nothing of an earlier run can be taken for its own. */
	private ClientParts newParts() {
		ClientParts parts = new ClientParts(this.connectionFactory, this.keyPrefix, UUID.randomUUID().toString(),
				this.channels, replicaSync());
		parts.events.setObserver(this.observer);
		return parts;
	}

	/**
	 * The replica sync, if on. {@link ReplicaSync} links against Lettuce, so while it is off (the default) the class
	 * is not even loaded: an application on Jedis may have no Lettuce on its class path.
	 */
	private @Nullable ReplicaSync replicaSync() {
		Objects.requireNonNull(this.syncTimeout, "syncTimeout must not be null");
		return (this.syncReplicas == 0 && this.syncTimeout.toMillis() >= 1) ? null
				: ReplicaSync.of(this.connectionFactory, this.syncReplicas, this.syncTimeout);
	}

	/** The parts of the current run; read once per operation, so that one operation sees one run. */
	ClientParts current() {
		return this.parts;
	}

	int syncReplicas() {
		return this.syncReplicas;
	}

	Duration syncTimeout() {
		return this.syncTimeout;
	}

	/** Sets the observer of this run and of the runs after it. */
	synchronized void setObserver(LockObserver observer) {
		this.observer = Objects.requireNonNull(observer, "observer must not be null");
		this.parts.events.setObserver(observer);
	}

	/**
	 * Sets how long {@link #stop()} waits for running holders.
	 * @throws IllegalArgumentException if negative
	 */
	void setShutdownTimeout(Duration shutdownTimeout) {
		Objects.requireNonNull(shutdownTimeout, "shutdownTimeout must not be null");
		if (shutdownTimeout.isNegative()) {
			throw new IllegalArgumentException("The shutdown timeout must not be negative, was " + shutdownTimeout);
		}
		this.shutdownTimeout = shutdownTimeout;
	}

	/** Starts a new run if the current one is closed; nothing while it is open. */
	synchronized void restart() {
		if (this.parts.closed.get()) {
			this.parts = newParts();
		}
	}

	/** Waits up to the shutdown timeout for running holders to release, then closes the run. */
	void stop() {
		ClientParts parts = this.parts;
		if (!parts.closed.get()) {
			parts.shutdownGrace.await(this.shutdownTimeout);
			parts.close();
		}
	}

}
