package io.github.distributedlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.awaitility.Awaitility;

/**
 * Redis with replicas behind Sentinel, as real processes on free ports: one primary, two replicas and three
 * sentinels (quorum 2) that declare the primary down after {@value #DOWN_AFTER_MILLIS} ms without an
 * answer and promote a replica. Start it once per test class ({@code @BeforeAll}) and share it: a start takes
 * a few seconds. Tests that fail the primary over call {@link #awaitHealthy()} first, so each finds a primary
 * with two synchronised replicas whichever server that is now. Not thread-safe: one test at a time.
 */
public final class SentinelTopology implements AutoCloseable {

	/** The name the sentinels monitor the primary under ({@code spring.data.redis.sentinel.master}). */
	public static final String MASTER = "mymaster";

	/** How long the sentinels wait for an answer before they take the primary for down. */
	public static final long DOWN_AFTER_MILLIS = 1000;

	private static final Pattern SENTINEL_INFO = Pattern
		.compile("name=" + MASTER + ",status=(\\w+),address=([^:]+):(\\d+),slaves=(\\d+),sentinels=(\\d+)");

	private final List<RedisServer> servers = new ArrayList<>();

	private final List<RedisServer> sentinels = new ArrayList<>();

	private SentinelTopology() {
	}

	/**
	 * Starts the servers and the sentinels and waits until every sentinel knows both replicas and the other
	 * sentinels.
	 * @return the running topology; the caller closes it
	 * @throws org.opentest4j.TestAbortedException if {@code redis-server} is not on PATH
	 */
	public static SentinelTopology start() {
		RedisServer.assumeOnPath();
		SentinelTopology topology = new SentinelTopology();
		try {
			RedisServer primary = RedisServer.start();
			topology.servers.add(primary);
			for (int i = 0; i < 2; i++) {
				topology.servers.add(RedisServer.start("--replicaof", primary.host(), Integer.toString(primary.port())));
			}
			String config = String.join("\n", "sentinel monitor " + MASTER + " " + primary.host() + " "
					+ primary.port() + " 2", "sentinel down-after-milliseconds " + MASTER + " " + DOWN_AFTER_MILLIS,
					"sentinel failover-timeout " + MASTER + " 10000", "sentinel parallel-syncs " + MASTER + " 2", "");
			for (int i = 0; i < 3; i++) {
				topology.sentinels.add(RedisServer.startWithConfig(config, "--sentinel"));
			}
			topology.awaitHealthy();
			return topology;
		}
		catch (RuntimeException | Error ex) {
			topology.close();
			throw ex;
		}
	}

	/**
	 * Returns the sentinels' addresses, as {@code spring.data.redis.sentinel.nodes} takes them.
	 * @return {@code host:port,host:port,host:port}
	 */
	public String sentinelNodes() {
		return this.sentinels.stream().map((s) -> s.host() + ":" + s.port()).collect(Collectors.joining(","));
	}

	/**
	 * Returns the server the sentinels take for the primary now.
	 * @return the primary
	 * @throws IllegalStateException if the first sentinel names no server of this topology
	 */
	public RedisServer primary() {
		Matcher info = sentinelInfo(this.sentinels.get(0));
		int port = Integer.parseInt(info.group(3));
		return this.servers.stream()
			.filter((s) -> s.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("The sentinels name an unknown primary: " + info.group()));
	}

	/**
	 * Kills the primary with SIGKILL and waits until every sentinel names a promoted replica, which answers as
	 * a primary. The killed server stays down until {@link #awaitHealthy()}.
	 * @param atMost how long the failover may take
	 * @return the new primary
	 */
	public RedisServer killPrimaryAndAwaitFailover(Duration atMost) {
		RedisServer old = primary();
		old.kill();
		Awaitility.await("failover by the sentinels").atMost(atMost).pollInterval(Duration.ofMillis(50)).until(() -> {
			for (RedisServer sentinel : this.sentinels) {
				if (Integer.parseInt(sentinelInfo(sentinel).group(3)) == old.port()) {
					return false;
				}
			}
			return primary().admin().info("replication").contains("role:master");
		});
		return primary();
	}

	/**
	 * Restarts every killed server (the sentinels make it a replica of the current primary) and waits until all
	 * sentinels agree on the primary and it has two replicas online and in sync.
	 */
	public void awaitHealthy() {
		for (RedisServer server : this.servers) {
			if (!server.isAlive()) {
				server.restart();
			}
		}
		Awaitility.await("a primary with two replicas online, known to three sentinels")
			.atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(100))
			.ignoreExceptions()
			.until(this::isHealthy);
		awaitReplicated();
	}

	/**
	 * Waits until both replicas have everything the primary has written so far (WAIT).
	 */
	public void awaitReplicated() {
		Awaitility.await("both replicas in sync")
			.atMost(Duration.ofSeconds(10))
			.ignoreExceptions()
			.until(() -> primary().admin().waitForReplication(2, 1000) == 2);
	}

	private boolean isHealthy() {
		int port = -1;
		for (RedisServer sentinel : this.sentinels) {
			Matcher info = sentinelInfo(sentinel);
			int named = Integer.parseInt(info.group(3));
			if (!info.group(1).equals("ok") || (port != -1 && named != port) || !info.group(4).equals("2")
					|| !info.group(5).equals("3")) {
				return false;
			}
			port = named;
		}
		String replication = primary().admin().info("replication");
		return replication.contains("role:master") && replication.contains("connected_slaves:2")
				&& replication.split("state=online", -1).length == 3;
	}

	private static Matcher sentinelInfo(RedisServer sentinel) {
		String info = sentinel.admin().info("sentinel");
		Matcher matcher = SENTINEL_INFO.matcher(info);
		if (!matcher.find()) {
			throw new IllegalStateException("Sentinel on port " + sentinel.port() + " does not monitor " + MASTER
					+ ": " + info);
		}
		return matcher;
	}

	/**
	 * Stops the sentinels, then the servers.
	 */
	@Override
	public void close() {
		this.sentinels.forEach(RedisServer::close);
		this.servers.forEach(RedisServer::close);
	}

}
