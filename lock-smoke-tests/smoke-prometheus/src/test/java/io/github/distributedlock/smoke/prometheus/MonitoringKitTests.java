package io.github.distributedlock.smoke.prometheus;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.smoke.prometheus.MonitoringKit.Alert;
import io.github.distributedlock.smoke.prometheus.MonitoringKit.Panel;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The monitoring kit's files on their own: {@code promtool} checks the alert rules and runs their unit tests
 * (skipped where the Debian package {@code prometheus} is not installed; {@code .ci/run} installs it), and the
 * dashboard is one Grafana can import on any Prometheus data source.
 */
class MonitoringKitTests {

	@Test
	void promtoolAcceptsTheRules() throws Exception {
		assertThat(promtool("check", "rules", MonitoringKit.path(MonitoringKit.RULES))).contains("SUCCESS: 5 rules found");
	}

	@Test
	void theRulesPassTheirUnitTests() throws Exception {
		assertThat(promtool("test", "rules", MonitoringKit.path(MonitoringKit.RULE_TESTS))).contains("SUCCESS");
	}

	@Test
	@SuppressWarnings("unchecked")
	void everyAlertHasASeverityASummaryADescriptionAndARunbookAndUnitTestsThatFireItAndKeepItQuiet() {
		List<Alert> alerts = MonitoringKit.alerts();
		assertThat(alerts).extracting(Alert::name)
			.containsExactly("DistributedLockLost", "DistributedLockRenewalsFailing",
					"DistributedLockAcquisitionsTimingOut", "DistributedLockHealthDown",
					"DistributedLockRedlockNodeNotVoting");
		for (Alert alert : alerts) {
			assertThat((Map<String, Object>) alert.rule().get("labels")).as(alert.name()).containsKey("severity");
			assertThat((Map<String, Object>) alert.rule().get("annotations")).as(alert.name())
				.containsKeys("summary", "description", "runbook_url");
		}
		assertThat(MonitoringKit.testedAlerts(true)).as("alerts a promtool test expects to fire")
			.containsExactlyInAnyOrderElementsOf(alerts.stream().map(Alert::name).toList());
		assertThat(MonitoringKit.testedAlerts(false)).as("alerts a promtool test expects to stay quiet")
			.containsExactlyInAnyOrderElementsOf(alerts.stream().map(Alert::name).toList());
	}

	@Test
	@SuppressWarnings("unchecked")
	void everyPanelQueriesTheChosenDataSourceAndTheDashboardCanBeImported() {
		Map<String, Object> dashboard = MonitoringKit.dashboard();
		assertThat(dashboard).containsEntry("uid", "distributed-lock").containsKeys("title", "schemaVersion");
		assertThat(dashboard).doesNotContainKey("id");   // an import creates it
		List<Map<String, Object>> variables = (List<Map<String, Object>>) ((Map<String, Object>) dashboard
			.get("templating")).get("list");
		assertThat(variables).extracting((variable) -> variable.get("name"))
			.containsExactly("datasource", "job", "instance", "lock");
		List<Panel> panels = MonitoringKit.panels();
		assertThat(panels).hasSizeGreaterThanOrEqualTo(10);
		for (Panel panel : panels) {
			assertThat(panel.exprs()).as(panel.title()).isNotEmpty().allSatisfy((expr) -> assertThat(expr)
				.contains("job=~\"$job\"").contains("instance=~\"$instance\""));
			assertThat((Map<String, Object>) panel.panel().get("datasource")).as(panel.title())
				.containsEntry("uid", "${datasource}");
			assertThat((String) panel.panel().get("description")).as(panel.title()).isNotBlank();
		}
		assertThat(panels).extracting(Panel::title).doesNotHaveDuplicates();
	}

	private static String promtool(String command, String what, Path file) throws IOException, InterruptedException {
		Path promtool = MonitoringKit.binary("promtool").orElse(null);
		Assumptions.assumeTrue(promtool != null,
				"promtool is not on PATH (Debian package prometheus; .ci/run installs it): the rules are not checked");
		Process process = new ProcessBuilder(promtool.toString(), command, what, file.getFileName().toString())
			.directory(file.getParent().toFile())
			.redirectErrorStream(true)
			.start();
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("promtool ended").isTrue();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.exitValue()).as("promtool " + command + " " + what + ":\n" + output).isZero();
		return output;
	}

}
