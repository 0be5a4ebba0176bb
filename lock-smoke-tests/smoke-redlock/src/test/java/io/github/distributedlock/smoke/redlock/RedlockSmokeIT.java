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
 * The starter (and Actuator's health) alone on {@code distributed-lock.store=redlock}, a Redlock-only application:
 * three independent {@code redis-server} nodes, nothing under {@code spring.data.redis}, and a fourth server, the
 * checker, that the applications reach with a Lettuce client of their own ({@code smoke.checker-url}) and that holds
 * the counter and the count of callers inside (so no lock lives where the check is made). Two instances with the
 * README's Quick-start and Redlock YAML, the nodes given on the command line in place of the README's host names,
 * add to the counter from four threads each through a {@code @DistributedLock} method, then log their health.
 */
class RedlockSmokeIT {

	@Test
	void twoInstancesOnThreeRedlockNodesAddToOneCounterOneAtATimeWithoutLosingAnAdd() {
		try (SmokeRedis checker = SmokeRedis.start();
				SmokeRedis node1 = SmokeRedis.start();
				SmokeRedis node2 = SmokeRedis.start();
				SmokeRedis node3 = SmokeRedis.start()) {
			List<SmokeRedis> nodes = List.of(node1, node2, node3);
			try (TwoInstances counters = TwoInstances.startWithoutSpringDataRedis("redlock",
					ReadmeYaml.importArgument(ReadmeYaml.REDLOCK_MARKER, "readme-redlock.yml"),
					"--distributed-lock.redlock.nodes=" + urls(nodes), "--smoke.instances=2",
					"--smoke.checker-url=redis://127.0.0.1:" + checker.port())) {
				counters.awaitCleanExits(Duration.ofSeconds(90));
				int adds = 2 * RedlockApplication.THREADS * RedlockApplication.ADDS;
				counters.assertAlwaysAloneWithoutErrors(adds);
				assertThat(checker.get("smoke:counter")).as("the counter after every add")
					.isEqualTo(Integer.toString(adds));
				assertThat(checker.get("smoke:inside")).as("callers left inside").isEqualTo("0");
				for (SmokeApplication instance : List.of(counters.a(), counters.b())) {
					assertStartedOnRedlock(instance, nodes);
					assertHealthyByItsNodes(instance, nodes);
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
	void theApplicationRunsOnLettuceWithActuatorsHealthWithoutJacksonOrAWebServer() {
		assertThat(RepackagedJar.libraries()).anyMatch((jar) -> jar.startsWith("lock-spring-boot-autoconfigure-"))
			.anyMatch((jar) -> jar.startsWith("lettuce-core-"))
			.anyMatch((jar) -> jar.startsWith("spring-boot-health-"))
			.noneMatch((jar) -> jar.startsWith("jackson-") || jar.startsWith("gson-"))
			.noneMatch((jar) -> jar.startsWith("spring-web") || jar.startsWith("tomcat-")
					|| jar.startsWith("reactor-netty"));
	}

	/**
	 * What a Redlock-only application reports as its health: the {@code distributedLock} contributor, UP, naming each
	 * node, and no {@code redis} contributor, which would judge it by Spring Boot's default {@code localhost:6379}, a
	 * server it never uses (the application checks that before it asks any contributor, and exits with 1 if one is
	 * there, so the test never has it connect to a Redis of the machine).
	 */
	private static void assertHealthyByItsNodes(SmokeApplication instance, List<SmokeRedis> nodes) {
		List<String> health = instance.lines().stream().filter((line) -> line.contains(" health ")).toList();
		assertThat(health).as(instance.name() + "'s health").noneMatch((line) -> line.contains("health redis:"));
		assertThat(health).as(instance.name() + "'s health")
			.anyMatch((line) -> line.contains("health distributedLock: UP") && nodes.stream()
				.allMatch((node) -> line.contains("127.0.0.1:" + node.port() + "=up")));
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
