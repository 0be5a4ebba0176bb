package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.RedisServer;
import org.awaitility.core.ConditionFactory;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * N independent {@code redis-server} processes a test class shares, and Redlock clients over them: the fault
 * tests kill some or restart them empty, and {@link #reset()} restarts the dead ones and empties all before each
 * test. A further server, apart from the nodes, is the {@linkplain #resource() resource} the locks protect.
 */
final class RedlockTopology implements AutoCloseable {

	static final String PREFIX = "rl:";

	/** The ACL user a test may give the nodes ({@link #setUser}); deleted by {@link #reset()}. */
	static final String USER = "locks";

	static final String PASSWORD = "locks-password";

	final List<RedisServer> servers = new ArrayList<>();

	private final List<RedlockLockClient> clients = new ArrayList<>();

	private @Nullable RedisServer resource;

	RedlockTopology(int nodes) {
		this(nodes, (node) -> RedisServer.start());
	}

	/**
	 * Starts the nodes, each as {@code start} makes it (one on a {@link io.github.distributedlock.test.FakeClock},
	 * for instance).
	 */
	RedlockTopology(int nodes, IntFunction<RedisServer> start) {
		RedisServer.assumeOnPath();
		for (int i = 0; i < nodes; i++) {
			this.servers.add(start.apply(i));
		}
	}

	List<String> urls() {
		return this.servers.stream().map((server) -> "redis://" + server.host() + ":" + server.port()).toList();
	}

	/**
	 * Gives one node the ACL user {@link #USER} with {@link #PASSWORD} and exactly this rule.
	 * @param node the node
	 * @param rule such as {@code ~lock:* &lock:* -@all +evalsha ...}
	 */
	void setUser(int node, String rule) {
		List<String> words = new ArrayList<>(List.of("ACL", "SETUSER", USER, "reset", "on", ">" + PASSWORD));
		words.addAll(List.of(rule.split(" ")));
		this.servers.get(node).cli(words.toArray(new String[0]));
	}

	/** The node URLs with the user {@link #USER} and its password, one of them with the given password instead. */
	String[] urlsOfUser(int wrongPasswordNode, String wrongPassword) {
		String[] urls = new String[this.servers.size()];
		for (int i = 0; i < urls.length; i++) {
			RedisServer server = this.servers.get(i);
			urls[i] = "redis://" + USER + ":" + ((i == wrongPasswordNode) ? wrongPassword : PASSWORD) + "@"
					+ server.host() + ":" + server.port();
		}
		return urls;
	}

	/** The node URLs with the user {@link #USER} and its password. */
	String[] urlsOfUser() {
		return urlsOfUser(-1, "");
	}

	/** Names a node as the library does, {@code host:port}. */
	String name(int node) {
		return this.servers.get(node).host() + ":" + this.servers.get(node).port();
	}

	int quorum() {
		return this.servers.size() / 2 + 1;
	}

	RedlockLockClient client() {
		// a node timeout with room for a loaded test machine
		return client(Duration.ofMillis(250), Duration.ofMillis(20));
	}

	RedlockLockClient client(Duration nodeTimeout, Duration retryDelay) {
		RedlockLockClient client = new RedlockLockClient(new RedlockSettings(urls(), nodeTimeout, 0.01, retryDelay,
				Duration.ofMillis(10), PREFIX));
		this.clients.add(client);
		// the connections open in the background: the first round of a fresh client may find them still opening
		try {
			acquired(client, request("warm-up").timeout(Duration.ofSeconds(10)).build()).close();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		return client;
	}

	/**
	 * Restarts killed servers, empties every server, sets back what a test configured (no memory limit, the
	 * default eviction policy, no ACL user but the default one), closes the clients of the last test.
	 */
	void reset() {
		this.clients.forEach(RedlockLockClient::close);
		this.clients.clear();
		for (RedisServer server : this.servers) {
			if (!server.isAlive()) {
				server.restart();
			}
			server.admin().flushall();
			server.admin().configSet("maxmemory", "0");
			server.admin().configSet("maxmemory-policy", "noeviction");
			server.admin().aclDeluser(USER);
		}
		if (this.resource != null) {
			this.resource.admin().flushall();
		}
	}

	/**
	 * Kills a node ({@code kill -9}) and starts it again on its port at once, empty: it persists nothing, so it
	 * forgot every lock and token counter it had.
	 */
	void restartEmpty(int node) {
		this.servers.get(node).kill();
		this.servers.get(node).restart();
	}

	/**
	 * A Redis server apart from the nodes, started on first use: the resource the locks protect, written with
	 * fenced writes.
	 */
	synchronized RedisServer resource() {
		if (this.resource == null) {
			this.resource = RedisServer.start();
		}
		return this.resource;
	}

	/** Occupies a key on one node as another owner would, for the given time. */
	void occupy(int node, String key, Duration lease) {
		this.servers.get(node).admin().hset(PREFIX + key, "owner", "another-client:1/1");
		this.servers.get(node).admin().pexpire(PREFIX + key, lease.toMillis());
	}

	/** Ends another owner's {@linkplain #occupy occupation} of a key on one node, as its release would. */
	void free(int node, String key) {
		assertThat(ownerOn(node, key)).as("occupied by another owner on node %d", node).isEqualTo("another-client:1/1");
		this.servers.get(node).admin().del(PREFIX + key);
	}

	/** The owner field of a key on one node, or null. */
	String ownerOn(int node, String key) {
		return this.servers.get(node).admin().hget(PREFIX + key, "owner");
	}

	/**
	 * Waits until no node has the key: a release completes once a quorum deleted it, and the last node may still
	 * be running it.
	 */
	void awaitGone(String key) {
		soon().untilAsserted(() -> {
			for (int node = 0; node < this.servers.size(); node++) {
				assertThat(ownerOn(node, key)).as("%s on node %d", key, node).isNull();
			}
		});
	}

	/**
	 * Awaits a condition that holds at once or soon (a node still running a command whose outcome its caller
	 * already knew): checked at once, then every 10 ms, for up to 5 s.
	 */
	static ConditionFactory soon() {
		return await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).atMost(Duration.ofSeconds(5));
	}

	/** Calls a node ran of the commands whose names match {@code command} (a regex), from INFO commandstats. */
	static long calls(RedisServer server, String command) {
		java.util.regex.Matcher matcher = java.util.regex.Pattern
			.compile("(?m)^cmdstat_(?:" + command + "):calls=(\\d+)")
			.matcher(server.admin().info("commandstats"));
		long total = 0;
		while (matcher.find()) {
			total += Long.parseLong(matcher.group(1));
		}
		return total;
	}

	static LockRequest.Builder request(String key) {
		return LockRequest.builder(key).lease(Duration.ofSeconds(5));
	}

	static LockHandle acquired(RedlockLockClient client, LockRequest request) throws InterruptedException {
		LockHandle handle = client.acquire(request);
		assertThat(handle).as("acquired " + request.key()).isNotNull();
		return handle;
	}

	@Override
	public void close() {
		this.clients.forEach(RedlockLockClient::close);
		this.servers.forEach(RedisServer::close);
		if (this.resource != null) {
			this.resource.close();
		}
	}

}
