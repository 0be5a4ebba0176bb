package io.github.distributedlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.awaitility.Awaitility;

/**
 * A Redis Cluster with replicas, as real processes on free ports: three primaries and three replicas, one
 * replica per primary, formed by {@code redis-cli --cluster create}. A primary that answers nothing for
 * {@value #NODE_TIMEOUT_MILLIS} ms is failed over to its replica. Start it once per test class
 * ({@code @BeforeAll}) and share it; tests that fail primaries over call {@link #awaitHealthy()} first, so each
 * finds three primaries with a replica in sync each, whichever servers they are now. Not thread-safe: one test
 * at a time.
 */
public final class ClusterTopology implements AutoCloseable {

	/** How long a node may stay silent before the others take it for failed. */
	public static final long NODE_TIMEOUT_MILLIS = 1500;

	private final List<RedisServer> servers = new ArrayList<>();

	private ClusterTopology() {
	}

	/**
	 * Starts six nodes, forms the cluster and waits until it is healthy.
	 * @param extraArgs more arguments of every node, also after a restart (such as {@code --user ...})
	 * @return the running cluster; the caller closes it
	 * @throws org.opentest4j.TestAbortedException if {@code redis-server} or {@code redis-cli} is not on PATH
	 */
	public static ClusterTopology start(String... extraArgs) {
		RedisServer.assumeOnPath();
		ClusterTopology topology = new ClusterTopology();
		try {
			List<String> args = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file",
					"nodes.conf", "--cluster-node-timeout", Long.toString(NODE_TIMEOUT_MILLIS)));
			args.addAll(List.of(extraArgs));
			for (int i = 0; i < 6; i++) {
				topology.servers.add(RedisServer.start(args.toArray(String[]::new)));
			}
			List<String> create = new ArrayList<>(List.of("--cluster", "create"));
			topology.servers.forEach((s) -> create.add(s.host() + ":" + s.port()));
			create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
			topology.servers.get(0).cli(create.toArray(String[]::new));
			topology.awaitHealthy();
			return topology;
		}
		catch (RuntimeException | Error ex) {
			topology.close();
			throw ex;
		}
	}

	/**
	 * Returns the nodes' addresses, as {@code spring.data.redis.cluster.nodes} takes them.
	 * @return {@code host:port,...} of all six nodes
	 */
	public String nodes() {
		return this.servers.stream().map((s) -> s.host() + ":" + s.port()).collect(Collectors.joining(","));
	}

	/**
	 * Returns the servers of the cluster, running or killed.
	 * @return all six, in the order they were started
	 */
	public List<RedisServer> servers() {
		return List.copyOf(this.servers);
	}

	/**
	 * Returns the primary that owns the hash slot of a Redis key now.
	 * @param redisKey the key, with its hash tag if any
	 * @return the primary
	 */
	public RedisServer primaryOf(String redisKey) {
		return primaryOfSlot(anyAlive().admin().clusterKeyslot(redisKey));
	}

	/**
	 * Moves a hash slot, with its keys, to another primary, as {@code redis-cli --cluster reshard} does:
	 * {@code CLUSTER SETSLOT ... IMPORTING/MIGRATING}, {@code MIGRATE} of its keys, then {@code SETSLOT ... NODE}
	 * on both primaries and the others; waits until every running node sees the new owner.
	 * @param slot the hash slot
	 * @param to the primary that gets it
	 */
	public void moveSlot(int slot, RedisServer to) {
		RedisServer from = primaryOfSlot(slot);
		String fromId = from.admin().clusterMyId();
		String toId = to.admin().clusterMyId();
		to.admin().clusterSetSlotImporting(slot, fromId);
		from.admin().clusterSetSlotMigrating(slot, toId);
		for (String key : from.admin().clusterGetKeysInSlot(slot, 1000)) {
			from.cli("migrate", to.host(), Integer.toString(to.port()), key, "0", "5000");
		}
		to.admin().clusterSetSlotNode(slot, toId);
		from.admin().clusterSetSlotNode(slot, toId);
		this.servers.stream().filter((s) -> s != to && s != from && s.isAlive()
				&& s.admin().info("replication").contains("role:master"))
			.forEach((s) -> s.admin().clusterSetSlotNode(slot, toId));
		Awaitility.await("slot " + slot + " owned by port " + to.port() + " everywhere")
			.atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> this.servers.stream().filter(RedisServer::isAlive)
				.allMatch((s) -> nodes(s).stream().anyMatch((n) -> n.port() == to.port() && n.owns(slot))));
	}

	/**
	 * Returns the primary that owns a hash slot now.
	 * @param slot the slot
	 * @return the primary
	 */
	public RedisServer primaryOfSlot(long slot) {
		for (Node node : nodes(anyAlive())) {
			if (node.isPrimary() && node.owns(slot)) {
				return server(node.port());
			}
		}
		throw new IllegalStateException("No primary owns slot " + slot);
	}

	/**
	 * Returns the running primaries.
	 * @return the primaries, three when healthy
	 */
	public List<RedisServer> primaries() {
		return this.servers.stream()
			.filter((s) -> s.isAlive() && s.admin().info("replication").contains("role:master"))
			.toList();
	}

	/**
	 * Returns the running replica of a primary.
	 * @param primary a primary of this cluster
	 * @return its replica
	 */
	public RedisServer replicaOf(RedisServer primary) {
		// after a CLUSTER FAILOVER the old primary shows up as the new one's replica a moment later
		return Awaitility.await()
			.atMost(Duration.ofSeconds(15))
			.ignoreExceptionsInstanceOf(IllegalStateException.class)
			.until(() -> findReplicaOf(primary), (replica) -> replica != null);
	}

	private RedisServer findReplicaOf(RedisServer primary) {
		List<Node> nodes = nodes(primary);
		String primaryId = nodes.stream()
			.filter((n) -> n.port() == primary.port())
			.findFirst()
			.orElseThrow()
			.id();
		return nodes.stream()
			.filter((n) -> n.replicates(primaryId) && server(n.port()).isAlive())
			.map((n) -> server(n.port()))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("Primary on port " + primary.port() + " has no replica"));
	}

	/**
	 * Makes a replica take over from its primary with {@code CLUSTER FAILOVER} (the primary agrees, no write is
	 * lost), and waits until the cluster is healthy again.
	 * @param replica the replica to promote
	 */
	public void failover(RedisServer replica) {
		replica.admin().clusterFailover(false);
		awaitPrimary(replica, Duration.ofSeconds(30));
		awaitHealthy();
	}

	/**
	 * Kills a primary with SIGKILL and waits until its replica has been promoted and every running node sees
	 * the cluster as ok. The killed server stays down until {@link #awaitHealthy()}.
	 * @param primary the primary to kill
	 * @param atMost how long the failover may take
	 * @return the promoted replica
	 */
	public RedisServer killAndAwaitFailover(RedisServer primary, Duration atMost) {
		RedisServer replica = replicaOf(primary);
		primary.kill();
		awaitPrimary(replica, atMost);
		return replica;
	}

	private void awaitPrimary(RedisServer replica, Duration atMost) {
		Awaitility.await("replica on port " + replica.port() + " promoted")
			.atMost(atMost)
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.until(() -> replica.admin().info("replication").contains("role:master")
					&& this.servers.stream().filter(RedisServer::isAlive).allMatch(ClusterTopology::clusterOk));
	}

	/**
	 * Restarts every killed node (it rejoins as a replica of the one promoted in its place) and waits until
	 * every node sees the cluster as ok and each of the three primaries has a replica in sync.
	 */
	public void awaitHealthy() {
		for (RedisServer server : this.servers) {
			if (!server.isAlive()) {
				server.restart();
			}
		}
		Awaitility.await("three primaries with a replica in sync each")
			.atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(100))
			.ignoreExceptions()
			.until(this::isHealthy);
	}

	private boolean isHealthy() {
		if (!this.servers.stream().allMatch(ClusterTopology::clusterOk)) {
			return false;
		}
		int primaries = 0;
		for (RedisServer server : this.servers) {
			String replication = server.admin().info("replication");
			if (replication.contains("role:master")) {
				primaries++;
				if (!replication.contains("connected_slaves:1") || !replication.contains("state=online")) {
					return false;
				}
			}
			else if (!replication.contains("master_link_status:up")
					|| replication.contains("master_sync_in_progress:1")) {
				return false;
			}
		}
		// every node agrees: three primaries, none failed
		return primaries == 3 && nodes(anyAlive()).stream().noneMatch(Node::failed);
	}

	private static boolean clusterOk(RedisServer server) {
		return server.admin().clusterInfo().contains("cluster_state:ok");
	}

	private RedisServer anyAlive() {
		return this.servers.stream().filter(RedisServer::isAlive).findFirst().orElseThrow();
	}

	private RedisServer server(int port) {
		return this.servers.stream()
			.filter((s) -> s.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No node of this cluster on port " + port));
	}

	private static List<Node> nodes(RedisServer server) {
		return server.admin().clusterNodes().lines().filter((l) -> !l.isBlank()).map(Node::parse).toList();
	}

	/**
	 * Stops every node.
	 */
	@Override
	public void close() {
		this.servers.forEach(RedisServer::close);
	}

	/** One line of CLUSTER NODES: {@code id ip:port@cport flags primary-id ping pong epoch link slot...}. */
	private record Node(String id, int port, String flags, String primaryId, List<String> slots) {

		static Node parse(String line) {
			String[] fields = line.trim().split(" ");
			String address = fields[1];
			int port = Integer.parseInt(address.substring(address.indexOf(':') + 1, address.indexOf('@')));
			return new Node(fields[0], port, fields[2], fields[3], List.of(fields).subList(8, fields.length));
		}

		boolean isPrimary() {
			return this.flags.contains("master") && !failed();
		}

		boolean failed() {
			return this.flags.contains("fail");
		}

		boolean replicates(String primary) {
			return this.flags.contains("slave") && this.primaryId.equals(primary) && !failed();
		}

		boolean owns(long slot) {
			for (String range : this.slots) {
				if (range.startsWith("[")) {
					continue; // a slot being migrated
				}
				int dash = range.indexOf('-');
				long from = Long.parseLong((dash < 0) ? range : range.substring(0, dash));
				long to = (dash < 0) ? from : Long.parseLong(range.substring(dash + 1));
				if (slot >= from && slot <= to) {
					return true;
				}
			}
			return false;
		}

	}

}
