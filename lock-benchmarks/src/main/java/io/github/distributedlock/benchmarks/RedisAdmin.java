package io.github.distributedlock.benchmarks;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The Redis under test as {@code run.sh} started it ({@code -Dbench.redis.host}, default 127.0.0.1;
 * {@code -Dbench.redis.port}, default 6379), and a connection of the runner's own to it, apart from the clients
 * under test: to flush it between runs, to reset and read its command counts and CPU time. One place for what
 * every runner and benchmark state used to set up alike. Not thread-safe: the runner's main thread uses it
 * (the reactive commands excepted, which Lettuce lets any thread use).
 */
final class RedisAdmin implements AutoCloseable {

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private RedisAdmin(RedisClient client) {
		this.client = client;
		this.connection = client.connect();
	}

	/**
	 * The host of the Redis under test.
	 * @return {@code -Dbench.redis.host}, 127.0.0.1 by default
	 */
	static String host() {
		return System.getProperty("bench.redis.host", "127.0.0.1");
	}

	/**
	 * The port of the Redis under test.
	 * @return {@code -Dbench.redis.port}, 6379 by default
	 */
	static int port() {
		return Integer.getInteger("bench.redis.port", 6379);
	}

	/**
	 * Connects to the Redis under test.
	 * @return the connection; close it when done
	 * @throws io.lettuce.core.RedisConnectionException if Redis does not answer
	 */
	static RedisAdmin connect() {
		RedisClient client = RedisClient.create(RedisURI.create(host(), port()));
		try {
			return new RedisAdmin(client);
		}
		catch (RuntimeException ex) {
			client.shutdown();
			throw ex;
		}
	}

	/**
	 * The connection's blocking commands, for what the methods here do not cover.
	 * @return the commands
	 */
	RedisCommands<String, String> sync() {
		return this.connection.sync();
	}

	/**
	 * The connection's reactive commands.
	 * @return the commands
	 */
	RedisReactiveCommands<String, String> reactive() {
		return this.connection.reactive();
	}

	/** Deletes every key: each run starts on an empty Redis. */
	void flushAll() {
		sync().flushall();
	}

	/** Resets the command counts ({@code CONFIG RESETSTAT}): {@link #commandStats()} counts from now on. */
	void resetStats() {
		sync().configResetstat();
	}

	/**
	 * The commands Redis ran since the last {@link #resetStats()}.
	 * @return the parsed {@code INFO commandstats}
	 */
	CommandStats commandStats() {
		return CommandStats.parse(sync().info("commandstats"));
	}

	/**
	 * Redis's user CPU time so far ({@code used_cpu_user}): its own work, reading and parsing requests, running
	 * commands and scripts, without the system calls (on loopback, a reply's system call also runs the client
	 * socket's receive path, so the system time depends on the client too).
	 * @return seconds
	 */
	double userCpuSeconds() {
		return cpuSeconds("used_cpu_user:");
	}

	/**
	 * The CPU time Redis has used since it started, system and user.
	 * @return seconds
	 */
	double cpuSeconds() {
		return cpuSeconds("used_cpu_sys:", "used_cpu_user:");
	}

	/** The sum of the named {@code INFO cpu} fields (each given with its colon), in seconds. */
	private double cpuSeconds(String... fields) {
		double seconds = 0;
		for (String line : sync().info("cpu").split("\r?\n")) {
			for (String field : fields) {
				if (line.startsWith(field)) {
					seconds += Double.parseDouble(line.substring(field.length()));
				}
			}
		}
		return seconds;
	}

	@Override
	public void close() {
		try {
			this.connection.close();
		}
		finally {
			this.client.shutdown();
		}
	}

}
