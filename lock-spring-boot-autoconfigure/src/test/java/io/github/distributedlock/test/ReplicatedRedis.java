package io.github.distributedlock.test;

import java.time.Duration;

import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A Redis primary with one replica, two {@code redis-server} processes on free ports, for replica sync tests.
 * The replica can be frozen ({@code kill -STOP}) and thawed ({@code kill -CONT}): a real replica that stops
 * acknowledging, as one in a long stall or behind a dead link would.
 */
public final class ReplicatedRedis implements AutoCloseable {

	private final RedisServer primary;

	private final RedisServer replica;

	private final LettuceConnectionFactory replicaConnections;

	private @Nullable FrozenProcess frozen;

	private ReplicatedRedis(RedisServer primary, RedisServer replica) {
		this.primary = primary;
		this.replica = replica;
		this.replicaConnections = replica.connectionFactory();
	}

	/**
	 * Starts a primary and a replica of it, and waits until the replica is in sync.
	 * @return the running pair; the caller closes it
	 */
	public static ReplicatedRedis start() {
		RedisServer primary = RedisServer.start();
		RedisServer replica;
		try {
			replica = RedisServer.start("--replicaof", primary.host(), Integer.toString(primary.port()));
		}
		catch (RuntimeException ex) {
			primary.close();
			throw ex;
		}
		ReplicatedRedis pair = new ReplicatedRedis(primary, replica);
		try {
			awaitInSync(pair.replicaRedis());
		}
		catch (RuntimeException ex) {
			pair.close();
			throw ex;
		}
		return pair;
	}

	/**
	 * Waits until a replica's link to its primary is up.
	 * @param replica a template on the replica
	 */
	public static void awaitInSync(StringRedisTemplate replica) {
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> "up".equals(FrozenProcess.info(replica, "replication", "master_link_status")));
	}

	public RedisServer primary() {
		return this.primary;
	}

	/**
	 * Returns a template on the replica (reads only).
	 * @return the template
	 */
	public StringRedisTemplate replicaRedis() {
		return new StringRedisTemplate(this.replicaConnections);
	}

	/**
	 * Stops the replica process: it neither applies nor acknowledges the primary's writes until {@link #thaw()}.
	 */
	public synchronized void freeze() {
		this.frozen = FrozenProcess.freeze(replicaRedis());
	}

	/**
	 * Lets a frozen replica go on; it then catches up with the primary.
	 */
	public synchronized void thaw() {
		if (this.frozen != null) {
			this.frozen.close();
			this.frozen = null;
		}
	}

	/**
	 * Thaws the replica if frozen, and stops both servers.
	 */
	@Override
	public void close() {
		thaw();
		this.replicaConnections.destroy();
		this.replica.close();
		this.primary.close();
	}

}
