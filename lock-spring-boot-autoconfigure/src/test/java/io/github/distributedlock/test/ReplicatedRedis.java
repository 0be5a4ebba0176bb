package io.github.distributedlock.test;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A Redis primary with one replica, two {@code redis-server} processes on free ports, for replica sync tests.
 * The replica can be frozen ({@code kill -STOP}) and thawed ({@code kill -CONT}): a real replica that stops
 * acknowledging, as one in a long GC-like stall or behind a dead link would.
 */
public final class ReplicatedRedis implements AutoCloseable {

	private final RedisServer primary;

	private final RedisServer replica;

	private final LettuceConnectionFactory replicaConnections;

	private final long replicaPid;

	private boolean frozen;

	private ReplicatedRedis(RedisServer primary, RedisServer replica) {
		this.primary = primary;
		this.replica = replica;
		this.replicaConnections = replica.connectionFactory();
		this.replicaPid = Long.parseLong(info(replicaRedis(), "server", "process_id"));
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
		Awaitility.await()
			.atMost(Duration.ofSeconds(20))
			.until(() -> "up".equals(info(pair.replicaRedis(), "replication", "master_link_status")));
		return pair;
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
	 * Stops the replica process with SIGSTOP: it neither applies nor acknowledges the primary's writes until
	 * {@link #thaw()}.
	 */
	public synchronized void freeze() {
		signal("-STOP");
		this.frozen = true;
	}

	/**
	 * Lets a frozen replica go on (SIGCONT); it then catches up with the primary.
	 */
	public synchronized void thaw() {
		if (this.frozen) {
			signal("-CONT");
			this.frozen = false;
		}
	}

	private void signal(String signal) {
		try {
			Process kill = new ProcessBuilder("kill", signal, Long.toString(this.replicaPid)).inheritIO().start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill " + signal + " " + this.replicaPid + " failed");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Reads one field of {@code INFO <section>}.
	 * @param redis a template on the server to ask
	 * @param section the INFO section
	 * @param field the field name
	 * @return its value
	 */
	public static String info(StringRedisTemplate redis, String section, String field) {
		Properties info = redis.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info(section));
		String value = Objects.requireNonNull(info, "INFO returned nothing").getProperty(field);
		if (value == null) {
			throw new IllegalStateException("INFO " + section + " has no " + field);
		}
		return value;
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
