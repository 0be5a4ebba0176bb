package io.github.distributedlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import io.github.distributedlock.test.RedisServer;

/**
 * The N independent {@code redis-server} processes of a Redlock benchmark or chaos run, each on a free loopback
 * port of its own, started the way the tests and the chaos run start theirs ({@link RedisServer}: no
 * persistence), and what the runners do to them between runs: empty them, reset and read their command counts.
 * Not thread-safe: the runner's main thread uses it (the chaos run's fault thread only through
 * {@link #server(int)}).
 */
final class RedlockNodes implements AutoCloseable {

	private final List<RedisServer> servers = new ArrayList<>();

	/**
	 * Starts the servers.
	 * @param n how many, at least 3
	 * @throws IllegalStateException if a server did not start (none is left running then)
	 */
	RedlockNodes(int n) {
		try {
			for (int i = 0; i < n; i++) {
				this.servers.add(RedisServer.start());
			}
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
	}

	/**
	 * Returns how many nodes there are.
	 * @return N
	 */
	int size() {
		return this.servers.size();
	}

	/**
	 * Returns one node's server process, to kill, freeze or churn.
	 * @param index from 0
	 * @return the server
	 */
	RedisServer server(int index) {
		return this.servers.get(index);
	}

	/**
	 * Returns the nodes as {@code distributed-lock.redlock.nodes} takes them.
	 * @return {@code redis://127.0.0.1:port} per node
	 */
	List<String> urls() {
		return this.servers.stream().map((server) -> "redis://" + server.host() + ":" + server.port()).toList();
	}

	/** Deletes every key on every node: each run starts on empty nodes. */
	void flushAll() {
		this.servers.forEach((server) -> server.admin().flushall());
	}

	/** Resets the command counts of every node ({@code CONFIG RESETSTAT}). */
	void resetStats() {
		this.servers.forEach((server) -> server.admin().configResetstat());
	}

	/**
	 * Reads every node's command counts since {@link #resetStats()}, once they stopped growing: a Redlock
	 * release completes when a quorum answered, and the last node may still be running it. Reads every 50 ms
	 * until two reads in a row agree, for up to 5 s.
	 * @return the counts per node, in node order
	 */
	List<CommandStats> settledStats() {
		List<CommandStats> last = read();
		long giveUp = System.nanoTime() + 5_000_000_000L;
		while (System.nanoTime() - giveUp < 0) {
			// polling a counter that has no notification; the interval is the polling period
			LockSupport.parkNanos(50_000_000L);
			List<CommandStats> now = read();
			if (totals(now).equals(totals(last))) {
				return now;
			}
			last = now;
		}
		return last;
	}

	private List<CommandStats> read() {
		return this.servers.stream().map((server) -> CommandStats.parse(server.admin().info("commandstats"))).toList();
	}

	private static List<Long> totals(List<CommandStats> stats) {
		return stats.stream().map(CommandStats::total).toList();
	}

	@Override
	public void close() {
		for (RedisServer server : this.servers) {
			try {
				server.close();
			}
			catch (RuntimeException ex) {
				// stop the others all the same
			}
		}
		this.servers.clear();
	}

}
