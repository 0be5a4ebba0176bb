package io.github.distributedlock.smoke.prometheus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.distributedlock.smoke.FreePort;
import org.awaitility.Awaitility;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@code prometheus} server process (the Debian package's binary), on a free port of 127.0.0.1 with a data
 * directory of its own, that scrapes the given targets' {@code /actuator/prometheus} every second and evaluates the
 * given rule file every second; queried over its HTTP API. Its log is {@code prometheus.log} in the directory it
 * is given. Used by one test thread.
 */
final class PrometheusServer implements AutoCloseable {

	private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final Process process;

	private final int port;

	private final Path log;

	/** One series of a range query: its labels and its values, oldest first. */
	record Series(Map<String, String> labels, List<Double> values) {

		/** Whether some value of the series is above zero. */
		boolean positive() {
			return this.values.stream().anyMatch((value) -> value > 0);
		}

		@Override
		public String toString() {
			return this.labels + " " + this.values;
		}

	}

	private PrometheusServer(Process process, int port, Path log) {
		this.process = process;
		this.port = port;
		this.log = log;
	}

	/**
	 * Writes the configuration, starts the server and waits (at most 30 s) until it is ready.
	 * @param binary the {@code prometheus} binary
	 * @param dir where its configuration, data and log go
	 * @param rules the rule file it loads
	 * @param targets the {@code host:port} of each application, all in the job {@code locks}
	 * @return the running server; the caller closes it
	 */
	static PrometheusServer start(Path binary, Path dir, Path rules, List<String> targets) {
		int port = FreePort.next();
		String config = """
				global:
				  scrape_interval: 1s
				  scrape_timeout: 1s
				  evaluation_interval: 1s
				rule_files:
				  - '%s'
				scrape_configs:
				  - job_name: locks
				    metrics_path: /actuator/prometheus
				    static_configs:
				      - targets: [%s]
				""".formatted(rules, targets.stream().map((target) -> "'" + target + "'").collect(Collectors.joining(", ")));
		try {
			Files.createDirectories(dir);
			Path configFile = Files.writeString(dir.resolve("prometheus.yml"), config);
			Path log = dir.resolve("prometheus.log");
			Process process = new ProcessBuilder(binary.toString(), "--config.file=" + configFile,
					"--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
					"--log.level=warn")
				.redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
			PrometheusServer server = new PrometheusServer(process, port, log);
			Awaitility.await("prometheus ready on port " + port)
				.atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(100))
				.until(server::ready);
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + binary, ex);
		}
	}

	/**
	 * Runs a range query with a step of one second.
	 * @param expr the PromQL expression
	 * @param start the first evaluation time
	 * @param end the last one
	 * @return every series the expression returned at some step, with its values
	 * @throws IllegalStateException if the query fails (with Prometheus's error)
	 */
	@SuppressWarnings("unchecked")
	List<Series> queryRange(String expr, Instant start, Instant end) {
		Map<String, Object> data = data("/api/v1/query_range?query=" + encode(expr) + "&start=" + start.getEpochSecond()
				+ "&end=" + (end.getEpochSecond() + 1) + "&step=1");
		List<Series> series = new ArrayList<>();
		for (Map<String, Object> result : (List<Map<String, Object>>) data.get("result")) {
			List<Double> values = ((List<List<Object>>) result.get("values")).stream()
				.map((point) -> Double.parseDouble((String) point.get(1)))
				.toList();
			series.add(new Series((Map<String, String>) result.get("metric"), values));
		}
		return series;
	}

	/**
	 * Returns the label sets of the series whose name starts with a prefix, as the scrapes stored them.
	 * @param prefix such as {@code distributed_lock_}
	 * @return every such series, with its {@code __name__}
	 */
	@SuppressWarnings("unchecked")
	List<Map<String, String>> series(String prefix) {
		return (List<Map<String, String>>) (Object) list("/api/v1/series?match[]=" + encode("{__name__=~\"" + prefix + ".*\"}"));
	}

	/**
	 * Returns the rule groups as Prometheus loaded them, with each rule's health and last error.
	 * @return the groups of {@code /api/v1/rules}
	 */
	@SuppressWarnings("unchecked")
	List<Map<String, Object>> ruleGroups() {
		return (List<Map<String, Object>>) data("/api/v1/rules").get("groups");
	}

	/**
	 * Returns what the server logged.
	 * @return its log
	 */
	String log() {
		try {
			return Files.readString(this.log);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private boolean ready() {
		if (!this.process.isAlive()) {
			throw new AssertionError("prometheus ended with exit code " + this.process.exitValue() + ":\n" + log());
		}
		try {
			return get("/-/ready").statusCode() == 200;
		}
		catch (UncheckedIOException ex) {
			return false;   // not listening yet
		}
	}

	@SuppressWarnings("unchecked")
	private Map<String, Object> data(String path) {
		return (Map<String, Object>) body(path).get("data");
	}

	@SuppressWarnings("unchecked")
	private List<Object> list(String path) {
		return (List<Object>) body(path).get("data");
	}

	@SuppressWarnings("unchecked")
	private Map<String, Object> body(String path) {
		HttpResponse<String> response = get(path);
		Map<String, Object> body = JSON.readValue(response.body(), Map.class);
		if (response.statusCode() != 200 || !"success".equals(body.get("status"))) {
			throw new IllegalStateException("GET " + path + " answered " + response.statusCode() + ": " + response.body());
		}
		return body;
	}

	private HttpResponse<String> get(String path) {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(30))
			.GET()
			.build();
		try {
			return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("GET " + path + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static String encode(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

}
