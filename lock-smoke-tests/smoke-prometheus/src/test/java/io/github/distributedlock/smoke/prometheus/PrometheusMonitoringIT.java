package io.github.distributedlock.smoke.prometheus;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.github.distributedlock.smoke.ReadmeYaml;
import io.github.distributedlock.smoke.SmokeApplication;
import io.github.distributedlock.smoke.SmokeHttp;
import io.github.distributedlock.smoke.SmokeRedis;
import io.github.distributedlock.smoke.prometheus.MonitoringKit.Alert;
import io.github.distributedlock.smoke.prometheus.MonitoringKit.Panel;
import io.github.distributedlock.smoke.prometheus.PrometheusServer.Series;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/monitoring against running applications: a real {@code prometheus} (the Debian package's binary; the test is
 * skipped without it) scrapes two instances of the application, one on {@code store=redis} and one on
 * {@code store=redlock} over three nodes, and loads the alert rules. Their locks are held (and waited for),
 * contended, tried once and lost; then the Redis of the first is killed while it holds locks, and one Redlock node
 * of the second. Every alert expression and every dashboard query must then return the series it is about, and
 * none it is not (a try-once lock that skips does not count as timing out; the Redlock nodes that vote are not
 * named), Prometheus must have evaluated every rule without an error, and the series the rules' promtool tests
 * make up must have the names and labels of the scraped ones.
 */
class PrometheusMonitoringIT {

	/** What the dashboard's {@code $__rate_interval} is with a scrape every second: four scrapes. */
	private static final String RATE_INTERVAL = "4s";

	private static final Pattern LABEL = Pattern.compile("(\\w+)=\"");

	@Test
	void everyAlertAndPanelFindsItsSeriesWhileLocksAreHeldContendedAndLostAndRedisAndARedlockNodeDie() {
		Path binary = MonitoringKit.binary("prometheus").orElse(null);
		Assumptions.assumeTrue(binary != null,
				"prometheus is not on PATH (Debian package prometheus; .ci/run installs it): the monitoring kit is not "
						+ "tried against a real Prometheus");
		Path logs = Path.of(System.getProperty("smoke.logs", "target/smoke-logs"));
		try (SmokeRedis redis = SmokeRedis.start();
				SmokeRedis node1 = SmokeRedis.start();
				SmokeRedis node2 = SmokeRedis.start();
				SmokeRedis node3 = SmokeRedis.start();
				SmokeApplication onRedis = SmokeApplication.start("prometheus-redis", redis, arguments());
				SmokeApplication onRedlock = SmokeApplication.start("prometheus-redlock", redis,
						arguments(ReadmeYaml.importArgument(ReadmeYaml.REDLOCK_MARKER, "readme-redlock.yml"),
								"--distributed-lock.redlock.nodes=" + url(node1) + "," + url(node2) + "," + url(node3),
								// the live nodes must answer every vote, also on a loaded machine: the test says that
								// they are never named (the dead node's votes fail at once: its port refuses)
								"--distributed-lock.redlock.node-timeout=2s"))) {
			int portA = onRedis.httpPort();
			int portB = onRedlock.httpPort();
			onRedis.awaitStarted();
			onRedlock.awaitStarted();
			String a = "127.0.0.1:" + portA;
			String b = "127.0.0.1:" + portB;
			try (PrometheusServer prometheus = PrometheusServer.start(binary, logs.resolve("prometheus"),
					MonitoringKit.path(MonitoringKit.RULES), List.of(a, b))) {
				Instant start = Instant.now();
				Window window = new Window(prometheus, start);

				// held, and waited for; contended (callers give up after 100 ms); tried once; lost (hard lease)
				CompletableFuture<HttpResponse<String>> holder = SmokeHttp.postAsync(portA, "/held/1");
				window.await("a holder of held:1", "distributed_lock_active{instance=\"" + a + "\"} >= 1");
				CompletableFuture<HttpResponse<String>> waiter = SmokeHttp.postAsync(portA, "/held/1");
				window.await("a waiter for held:1",
						"distributed_lock_acquire_active_seconds_count{instance=\"" + a + "\", lock=\"held\"} >= 1");
				post(portA, "/held/1/end");
				assertThat(holder.join().body()).isEqualTo("released");
				assertThat(waiter.join().body()).isEqualTo("released");
				// twice: a timer's series appears with its first event, so a rate sees the second round only
				for (int round = 0; round < 2; round++) {
					assertThat(post(portA, "/contended")).contains("\"timeout\"").contains("\"released\"");
					assertThat(post(portA, "/skipped")).contains("\"skipped\"").contains("\"ran\"");
					window.await("a scrape after round " + round,
							"distributed_lock_acquire_seconds_count{instance=\"" + a + "\", lock=\"skipped\", outcome=\"timeout\"} >= "
									+ (2 * round + 2));
				}
				assertThat(post(portA, "/lost")).isEqualTo("LockLostException");
				CompletableFuture<HttpResponse<String>> redlockHolder = SmokeHttp.postAsync(portB, "/held/1");
				assertThat(post(portB, "/contended")).contains("\"released\"");

				// the Redlock instance's third node dies: its votes fail while the others grant, most of its votes
				node3.close();
				for (int i = 0; i < 6; i++) {
					post(portB, "/contended");
				}

				// the Redis instance's server dies while two locks are held: renewals fail, the health goes down,
				// one release (its work done within the lease) fails, the other hold is lost when its lease ends
				SmokeHttp.postAsync(portA, "/held/2");
				CompletableFuture<HttpResponse<String>> released = SmokeHttp.postAsync(portA, "/held/3");
				window.await("two holds", "distributed_lock_active{instance=\"" + a + "\"} >= 2");
				redis.close();
				post(portA, "/held/3/end");
				assertThat(released.join().body()).as("a release that could not reach Redis").isEqualTo("released");

				Map<String, Predicate<List<Series>>> alerts = new LinkedHashMap<>();
				alerts.put("DistributedLockLost", has(Map.of("instance", a, "lock", "lost", "type", "reentrant")));
				alerts.put("DistributedLockRenewalsFailing", has(Map.of("instance", a, "lock", "held")));
				alerts.put("DistributedLockAcquisitionsTimingOut", has(Map.of("instance", a, "lock", "contended"))
					.and(hasNo(Map.of("lock", "skipped"))));
				alerts.put("DistributedLockHealthDown", has(Map.of("instance", a)).and(hasNo(Map.of("instance", b))));
				alerts.put("DistributedLockRedlockNodeNotVoting", has(Map.of("instance", b, "node", node(node3)))
					.and(hasNo(Map.of("node", node(node1)))).and(hasNo(Map.of("node", node(node2)))));

				Map<String, Predicate<List<Series>>> panels = new LinkedHashMap<>();
				panels.put("Health", hasValue(Map.of("instance", a), 1).and(hasValue(Map.of("instance", a), 0)));
				panels.put("Locks held now", positive(Map.of("instance", a)).and(positive(Map.of("instance", b))));
				panels.put("Locks lost", positive(Map.of("lock", "lost", "type", "reentrant")));
				panels.put("Acquisitions by outcome", positive(Map.of("lock", "contended", "outcome", "timeout"))
					.and(positive(Map.of("lock", "held", "outcome", "acquired"))));
				panels.put("Share of acquisitions timing out", positive(Map.of("lock", "contended")));
				panels.put("Waiting to acquire now", positive(Map.of("lock", "held")));
				panels.put("Time to acquire, mean", positive(Map.of("lock", "held")));
				panels.put("Time to acquire, max", positive(Map.of("lock", "contended", "outcome", "timeout")));
				panels.put("Hold time, mean", positive(Map.of("lock", "contended")));
				panels.put("Hold time, max", positive(Map.of("lock", "lost", "outcome", "lost")));
				panels.put("Renewals failed", positive(Map.of("lock", "held")));
				panels.put("Releases failed", positive(Map.of("lock", "held")));
				panels.put("Votes by node and outcome", positive(Map.of("node", node(node1), "outcome", "granted"))
					.and(positive(Map.of("node", node(node3), "outcome", "error"))
						.or(positive(Map.of("node", node(node3), "outcome", "timeout")))));
				panels.put("Votes unanswered, share per node", positive(Map.of("node", node(node3))));

				assertThat(MonitoringKit.alerts()).extracting(Alert::name).containsExactlyElementsOf(alerts.keySet());
				assertThat(MonitoringKit.panels()).extracting(Panel::title).containsExactlyElementsOf(panels.keySet());
				Map<String, String> queries = new LinkedHashMap<>();
				Map<String, Predicate<List<Series>>> expected = new LinkedHashMap<>();
				for (Alert alert : MonitoringKit.alerts()) {
					queries.put("alert " + alert.name(), alert.expr());
					expected.put("alert " + alert.name(), alerts.get(alert.name()));
					// and Prometheus evaluated the rule itself: pending or firing
					queries.put("ALERTS of " + alert.name(), "ALERTS{alertname=\"" + alert.name() + "\"}");
					expected.put("ALERTS of " + alert.name(), (series) -> !series.isEmpty());
				}
				for (Panel panel : MonitoringKit.panels()) {
					for (String expr : panel.exprs()) {
						queries.put("panel " + panel.title(), MonitoringKit.resolve(expr, RATE_INTERVAL));
						expected.put("panel " + panel.title(), panels.get(panel.title()));
					}
				}
				window.awaitAll(queries, expected);
				post(portB, "/held/1/end");
				assertThat(redlockHolder.join().body()).isEqualTo("released");

				assertThat(prometheus.ruleGroups()).flatExtracting((group) -> (List<Map<String, Object>>) group.get("rules"))
					.hasSize(5)
					.allSatisfy((rule) -> assertThat(rule).as(rule.get("name") + ": " + rule.get("lastError"))
						.containsEntry("health", "ok"));
				assertTheUnitTestsSeriesAreShapedAsTheScrapedOnes(prometheus);
			}
		}
	}

	/**
	 * Every series the promtool tests make up ({@code distributed_lock_*}) has a scraped series of that name with
	 * the same label names.
	 */
	private static void assertTheUnitTestsSeriesAreShapedAsTheScrapedOnes(PrometheusServer prometheus) {
		Map<String, Set<Set<String>>> scraped = new HashMap<>();
		for (Map<String, String> series : prometheus.series("distributed_lock_")) {
			Set<String> labels = new TreeSet<>(series.keySet());
			labels.remove("__name__");
			scraped.computeIfAbsent(series.get("__name__"), (name) -> new HashSet<>()).add(labels);
		}
		List<String> unlike = new ArrayList<>();
		for (String selector : MonitoringKit.testSeries()) {
			String name = selector.substring(0, selector.indexOf('{'));
			if (!name.startsWith("distributed_lock_")) {
				continue;
			}
			Set<String> labels = new TreeSet<>();
			Matcher label = LABEL.matcher(selector.substring(selector.indexOf('{')));
			while (label.find()) {
				labels.add(label.group(1));
			}
			if (!scraped.getOrDefault(name, Set.of()).contains(labels)) {
				unlike.add(selector + " (scraped: " + scraped.getOrDefault(name, Set.of()) + ")");
			}
		}
		assertThat(unlike).as("promtool test series unlike every scraped one").isEmpty();
	}

	private static String[] arguments(String... more) {
		List<String> all = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
				"--management.endpoints.web.exposure.include=health,prometheus",
				// below a third of the 3 s lease of the lock 'held', so that a renewal fails before the lease ends
				"--spring.data.redis.timeout=500ms"));
		all.addAll(List.of(more));
		return all.toArray(String[]::new);
	}

	private static String post(int port, String path) {
		return SmokeHttp.postAsync(port, path).join().body();
	}

	private static String url(SmokeRedis node) {
		return "redis://" + node(node);
	}

	private static String node(SmokeRedis node) {
		return "127.0.0.1:" + node.port();
	}

	/** Some series has these labels (and maybe others). */
	private static Predicate<List<Series>> has(Map<String, String> labels) {
		return (series) -> series.stream().anyMatch((one) -> one.labels().entrySet().containsAll(labels.entrySet()));
	}

	/** No series has these labels. */
	private static Predicate<List<Series>> hasNo(Map<String, String> labels) {
		return has(labels).negate();
	}

	/** Some series with these labels was above zero at some time. */
	private static Predicate<List<Series>> positive(Map<String, String> labels) {
		return (series) -> series.stream()
			.anyMatch((one) -> one.labels().entrySet().containsAll(labels.entrySet()) && one.positive());
	}

	/** Some series with these labels had this value at some time. */
	private static Predicate<List<Series>> hasValue(Map<String, String> labels, double value) {
		return (series) -> series.stream()
			.anyMatch((one) -> one.labels().entrySet().containsAll(labels.entrySet()) && one.values().contains(value));
	}

	/** Range queries from the test's start to now. */
	private record Window(PrometheusServer prometheus, Instant start) {

		/** Waits (at most 60 s) until the expression returns a series. */
		void await(String what, String expr) {
			Awaitility.await(what + " (" + expr + ")")
				.atMost(Duration.ofSeconds(60))
				.pollInterval(Duration.ofMillis(250))
				.until(() -> !this.prometheus.queryRange(expr, this.start, Instant.now()).isEmpty());
		}

		/**
		 * Waits (at most 60 s) until every query returns what it should, then names those that do not.
		 */
		void awaitAll(Map<String, String> queries, Map<String, Predicate<List<Series>>> expected) {
			Map<String, List<Series>> last = new LinkedHashMap<>();
			try {
				Awaitility.await("every alert and panel query returning its series")
					.atMost(Duration.ofSeconds(60))
					.pollInterval(Duration.ofSeconds(1))
					.until(() -> {
						Instant now = Instant.now();
						boolean all = true;
						for (Map.Entry<String, String> query : queries.entrySet()) {
							List<Series> series = this.prometheus.queryRange(query.getValue(), this.start, now);
							last.put(query.getKey(), series);
							all &= expected.get(query.getKey()).test(series);
						}
						return all;
					});
			}
			catch (ConditionTimeoutException ex) {
				String failing = queries.keySet().stream()
					.filter((name) -> !expected.get(name).test(last.getOrDefault(name, List.of())))
					.map((name) -> name + ": " + queries.get(name) + "\n    returned " + last.get(name))
					.collect(Collectors.joining("\n"));
				throw new AssertionError("Not every query returned its series:\n" + failing, ex);
			}
		}

	}

}
