package io.github.distributedlock.smoke.redlock;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import io.github.distributedlock.smoke.ReadmeYaml;
import io.github.distributedlock.smoke.RepackagedJar;
import io.github.distributedlock.smoke.SmokeApplication;
import io.github.distributedlock.smoke.SmokeRedis;
import io.github.distributedlock.smoke.TwoInstances;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter alone on {@code distributed-lock.store=redlock}: three independent {@code redis-server} nodes, and a
 * fourth server, the checker, that the applications' {@code spring.data.redis} points at and that holds the
 * counter and the count of callers inside (so no lock lives where the check is made). Two instances with the
 * README's Quick-start and Redlock YAML, the nodes given on the command line in place of the README's host names,
 * add to the counter from four threads each through a {@code @DistributedLock} method.
 */
class RedlockSmokeIT {

	@Test
	void twoInstancesOnThreeRedlockNodesAddToOneCounterOneAtATimeWithoutLosingAnAdd() {
		try (SmokeRedis checker = SmokeRedis.start();
				SmokeRedis node1 = SmokeRedis.start();
				SmokeRedis node2 = SmokeRedis.start();
				SmokeRedis node3 = SmokeRedis.start()) {
			List<SmokeRedis> nodes = List.of(node1, node2, node3);
			try (TwoInstances counters = TwoInstances.start("redlock", checker,
					ReadmeYaml.importArgument(ReadmeYaml.REDLOCK_MARKER, "readme-redlock.yml"),
					"--distributed-lock.redlock.nodes=" + urls(nodes), "--smoke.instances=2")) {
				counters.awaitCleanExits(Duration.ofSeconds(90));
				int adds = 2 * RedlockApplication.THREADS * RedlockApplication.ADDS;
				counters.assertAlwaysAloneWithoutErrors(adds);
				assertThat(checker.get("smoke:counter")).as("the counter after every add")
					.isEqualTo(Integer.toString(adds));
				assertThat(checker.get("smoke:inside")).as("callers left inside").isEqualTo("0");
				for (SmokeApplication instance : List.of(counters.a(), counters.b())) {
					assertStartedOnRedlock(instance, nodes);
				}
			}
		}
	}

	@Test
	void theReadmeRedlockBlockSetsTheStoreAndTheNodes() {
		assertThat(ReadmeYaml.keys(ReadmeYaml.REDLOCK_MARKER)).contains("distributed-lock.store",
				"distributed-lock.redlock.nodes");
		assertThat(ReadmeYaml.block(ReadmeYaml.REDLOCK_MARKER)).contains("  store: redlock");
	}

	@Test
	void theApplicationRunsOnLettuceWithoutJacksonWebOrActuator() {
		assertThat(RepackagedJar.libraries()).anyMatch((jar) -> jar.startsWith("lock-spring-boot-autoconfigure-"))
			.anyMatch((jar) -> jar.startsWith("lettuce-core-"))
			.noneMatch((jar) -> jar.startsWith("jackson-") || jar.startsWith("gson-"))
			.noneMatch((jar) -> jar.startsWith("spring-web") || jar.startsWith("spring-boot-actuator")
					|| jar.startsWith("tomcat-") || jar.startsWith("reactor-netty"));
	}

	/**
	 * What the library logs at startup on this store: the line naming the nodes and the quorum, and a line per node
	 * from its startup check, naming the node ({@code host:port}) and its persistence (these nodes keep nothing, so
	 * a WARN each). The check asks a node again when the per-node timeout cut a command short, within 5 s, so a cold
	 * JVM on a loaded machine still checks every node.
	 */
	private static void assertStartedOnRedlock(SmokeApplication instance, List<SmokeRedis> nodes) {
		String where = "Distributed locks on Redlock over 3 independent Redis primaries (quorum 2): "
				+ nodes.stream().map((node) -> "127.0.0.1:" + node.port()).collect(Collectors.joining(", "))
				+ ", key prefix ";
		assertThat(instance.lines()).as(instance.name() + "'s startup line").anyMatch((line) -> line.contains(where));
		for (SmokeRedis node : nodes) {
			String named = "Redlock node 127.0.0.1:" + node.port() + " ";
			assertThat(instance.lines()).as(instance.name() + "'s startup check of node 127.0.0.1:" + node.port())
				.anyMatch((line) -> line.contains(named + "persists with appendonly no"));
		}
	}

	private static String urls(List<SmokeRedis> nodes) {
		return nodes.stream().map(RedlockSmokeIT::url).collect(Collectors.joining(","));
	}

	private static String url(SmokeRedis node) {
		return "redis://127.0.0.1:" + node.port();
	}

}
