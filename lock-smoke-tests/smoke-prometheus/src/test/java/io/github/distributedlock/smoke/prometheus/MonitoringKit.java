package io.github.distributedlock.smoke.prometheus;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import io.github.distributedlock.smoke.ProjectFiles;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.json.JsonMapper;

/**
 * The monitoring kit of {@code docs/monitoring/} as the tests read it: the alert rules, their promtool unit tests,
 * the Grafana dashboard's panels and queries, and where the Prometheus binaries are. Thread-safe.
 */
final class MonitoringKit {

	/** The alert rules, relative to the project's root. */
	static final String RULES = "docs/monitoring/distributed-lock-alerts.yml";

	/** The promtool unit tests of the rules. */
	static final String RULE_TESTS = "docs/monitoring/distributed-lock-alerts-tests.yml";

	/** The Grafana dashboard. */
	static final String DASHBOARD = "docs/monitoring/distributed-lock-dashboard.json";

	/** One alerting rule: its name and PromQL expression. */
	record Alert(String name, String expr, Map<String, Object> rule) {
	}

	/** One panel of the dashboard (rows excluded): its title and the expressions of its queries. */
	record Panel(String title, List<String> exprs, Map<String, Object> panel) {
	}

	private MonitoringKit() {
	}

	/**
	 * Returns the alerting rules of every group.
	 * @return the rules, in the file's order
	 */
	@SuppressWarnings("unchecked")
	static List<Alert> alerts() {
		Map<String, Object> file = yaml(RULES);
		List<Alert> alerts = new ArrayList<>();
		for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
			for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
				alerts.add(new Alert((String) rule.get("alert"), (String) rule.get("expr"), rule));
			}
		}
		return alerts;
	}

	/**
	 * Returns the series selectors of the promtool unit tests' input series, such as
	 * {@code distributed_lock_lost_total{job="orders",...}}.
	 * @return every input series of every test
	 */
	@SuppressWarnings("unchecked")
	static List<String> testSeries() {
		Map<String, Object> file = yaml(RULE_TESTS);
		List<String> series = new ArrayList<>();
		for (Map<String, Object> test : (List<Map<String, Object>>) file.get("tests")) {
			for (Map<String, Object> input : (List<Map<String, Object>>) test.get("input_series")) {
				series.add((String) input.get("series"));
			}
		}
		return series;
	}

	/**
	 * Returns the alerts that the promtool unit tests expect to fire, or expect not to fire, somewhere.
	 * @param firing {@code true} for the alerts expected to fire at some evaluation time, {@code false} for those
	 * expected to be quiet at some evaluation time
	 * @return their names
	 */
	@SuppressWarnings("unchecked")
	static Set<String> testedAlerts(boolean firing) {
		Map<String, Object> file = yaml(RULE_TESTS);
		Set<String> alerts = new TreeSet<>();
		for (Map<String, Object> test : (List<Map<String, Object>>) file.get("tests")) {
			for (Map<String, Object> check : (List<Map<String, Object>>) test.get("alert_rule_test")) {
				List<Object> expected = (List<Object>) check.get("exp_alerts");
				if ((expected != null && !expected.isEmpty()) == firing) {
					alerts.add((String) check.get("alertname"));
				}
			}
		}
		return alerts;
	}

	/**
	 * Returns the dashboard as JSON values (maps, lists, strings, numbers, booleans).
	 * @return the dashboard
	 */
	@SuppressWarnings("unchecked")
	static Map<String, Object> dashboard() {
		return JsonMapper.builder().build().readValue(read(DASHBOARD), Map.class);
	}

	/**
	 * Returns the panels of the dashboard that query, with their expressions.
	 * @return every panel but the rows
	 */
	@SuppressWarnings("unchecked")
	static List<Panel> panels() {
		List<Panel> panels = new ArrayList<>();
		for (Map<String, Object> panel : (List<Map<String, Object>>) dashboard().get("panels")) {
			if ("row".equals(panel.get("type"))) {
				continue;
			}
			List<String> exprs = new ArrayList<>();
			for (Map<String, Object> target : (List<Map<String, Object>>) panel.getOrDefault("targets", List.of())) {
				exprs.add((String) target.get("expr"));
			}
			panels.add(new Panel((String) panel.get("title"), exprs, panel));
		}
		return panels;
	}

	/**
	 * Returns a dashboard query as Prometheus gets it from Grafana with every variable at "All" and a rate
	 * interval of four scrapes.
	 * @param expr the panel's expression
	 * @param rateInterval what {@code $__rate_interval} becomes, such as {@code 4s}
	 * @return the expression with {@code $job}, {@code $instance}, {@code $lock} as {@code .*}
	 */
	static String resolve(String expr, String rateInterval) {
		return expr.replace("$__rate_interval", rateInterval)
			.replace("$job", ".*")
			.replace("$instance", ".*")
			.replace("$lock", ".*");
	}

	/**
	 * Returns the absolute path of a file of the kit.
	 * @param relative such as {@link #RULES}
	 * @return the path
	 */
	static Path path(String relative) {
		return ProjectFiles.file(relative);
	}

	/**
	 * Finds a binary of the Debian package {@code prometheus} on PATH.
	 * @param name {@code prometheus} or {@code promtool}
	 * @return its path, or empty when it is not on PATH
	 */
	static Optional<Path> binary(String name) {
		String path = System.getenv("PATH");
		for (String dir : (path != null) ? path.split(File.pathSeparator) : new String[0]) {
			Path candidate = Path.of(dir, name);
			if (Files.isExecutable(candidate)) {
				return Optional.of(candidate);
			}
		}
		return Optional.empty();
	}

	private static Map<String, Object> yaml(String relative) {
		return new Yaml().load(read(relative));
	}

	private static String read(String relative) {
		try {
			return Files.readString(path(relative), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
