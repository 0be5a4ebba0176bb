package io.github.distributedlock.test;

import java.util.ArrayList;
import java.util.List;

import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.autoconfigure.RedlockAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Spring Boot applications with the Redlock store ({@code distributed-lock.store=redlock}), configured only by
 * properties, and the {@code redis-server} nodes they lock on. Several applications started from one runner are
 * independent instances: each has its own Redlock client.
 */
public final class RedlockApplications {

	private static List<RedisServer> sharedNodes;

	private RedlockApplications() {
	}

	/**
	 * Returns 3 plain {@code redis-server} nodes for every test class of a test JVM that does not kill, restart or
	 * reconfigure them, started on first use and stopped when the JVM exits, as {@link SharedRedis} does; skips
	 * the test where there is no {@code redis-server}. Tests use keys of their own, so they do not meet.
	 * @return the nodes, in order
	 */
	public static synchronized List<RedisServer> sharedNodes() {
		if (sharedNodes == null) {
			RedisServer.assumeOnPath();
			List<RedisServer> started = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				started.add(RedisServer.start());
			}
			sharedNodes = List.copyOf(started);
			Runtime.getRuntime().addShutdownHook(new Thread(() -> started.forEach(RedisServer::close)));
		}
		return sharedNodes;
	}

	/**
	 * Returns the node URLs of servers.
	 * @param servers the servers
	 * @return one {@code redis://host:port} per server, in order
	 */
	public static String[] urls(List<RedisServer> servers) {
		return servers.stream().map((server) -> "redis://" + server.host() + ":" + server.port()).toArray(String[]::new);
	}

	/**
	 * Returns a runner of applications with the Redlock and the lock auto-configurations (and any more given),
	 * {@code distributed-lock.store=redlock}, the given node timeout, a retry delay of 20 ms (contended tests stay
	 * quick), and one {@code distributed-lock.redlock.nodes[i]} per node.
	 * @param nodeTimeout the {@code distributed-lock.redlock.node-timeout}, such as {@code "250ms"}
	 * @param nodes the node URLs, in order
	 * @param moreAutoConfigurations further auto-configurations, such as the metrics one
	 * @return the runner; it is immutable, so tests may share it and add properties or beans to it
	 */
	public static ApplicationContextRunner runner(String nodeTimeout, String[] nodes,
			Class<?>... moreAutoConfigurations) {
		List<String> properties = new ArrayList<>(List.of("distributed-lock.store=redlock",
				"distributed-lock.redlock.node-timeout=" + nodeTimeout, "distributed-lock.redlock.retry-delay=20ms"));
		for (int i = 0; i < nodes.length; i++) {
			properties.add("distributed-lock.redlock.nodes[" + i + "]=" + nodes[i]);
		}
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class,
					DistributedLockAutoConfiguration.class))
			.withConfiguration(AutoConfigurations.of(moreAutoConfigurations))
			.withPropertyValues(properties.toArray(new String[0]));
	}

}
