package io.github.distributedlock.actuate;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.distributedlock.core.LockLostEvent;
import io.github.distributedlock.test.RedisServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.client.RestClient;

/**
 * An application with Actuator, on a real web server on a free port, called over HTTP: what a user's
 * application with the starter and {@code spring-boot-starter-actuator} looks like.
 */
final class WebApp implements AutoCloseable {

	private static final ParameterizedTypeReference<Map<String, Object>> JSON = new ParameterizedTypeReference<>() {
	};

	final ConfigurableApplicationContext context;

	final RestClient http;

	private WebApp(ConfigurableApplicationContext context) {
		this.context = context;
		int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
		this.http = RestClient.builder()
			.baseUrl("http://127.0.0.1:" + port + "/actuator")
			.defaultStatusHandler(HttpStatusCode::isError, (request, response) -> {
			})
			.build();
	}

	/**
	 * Starts the application on a Redis server.
	 * @param redis the server
	 * @param properties more properties, {@code name=value}
	 * @return the started application
	 */
	static WebApp start(RedisServer redis, String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.SERVLET)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=1s",
					"management.endpoints.web.exposure.include=health,metrics,distributedlocks",
					"management.endpoint.health.show-details=always", "spring.main.banner-mode=off")
			.properties(properties)
			.run();
		return new WebApp(context);
	}

	/**
	 * Starts a Redlock-only application ({@code distributed-lock.store=redlock}, nothing under
	 * {@code spring.data.redis}) on these nodes. Nothing in it may connect to the Redis of Spring Boot's defaults
	 * ({@code localhost:6379}): a test checks that no bean would ({@code redisHealthIndicator},
	 * {@code redisHealthContributor}) before it asks the health endpoint.
	 * @param nodes the Redlock nodes
	 * @param properties more properties, {@code name=value}
	 * @return the started application
	 */
	static WebApp startRedlock(List<RedisServer> nodes, String... properties) {
		List<String> all = new java.util.ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1",
				"distributed-lock.store=redlock", "distributed-lock.redlock.node-timeout=250ms",
				"management.endpoints.web.exposure.include=health,distributedlocks",
				"management.endpoint.health.show-details=always", "spring.main.banner-mode=off"));
		for (int i = 0; i < nodes.size(); i++) {
			all.add("distributed-lock.redlock.nodes[" + i + "]=redis://" + nodes.get(i).host() + ":"
					+ nodes.get(i).port());
		}
		all.addAll(List.of(properties));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.SERVLET)
			.properties(all.toArray(new String[0]))
			.run();
		return new WebApp(context);
	}

	/** The events of lost locks that the application's listener received. */
	List<LockLostEvent> lostEvents() {
		return this.context.getBean(LostEvents.class).events;
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	/** GETs a JSON object. */
	Map<String, Object> get(String path) {
		return this.http.get().uri(path).retrieve().body(JSON);
	}

	/** The status of a GET. */
	int status(String path) {
		return this.http.get().uri(path).retrieve().toBodilessEntity().getStatusCode().value();
	}

	/**
	 * Returns a meter's COUNT (timers, counters) or VALUE (gauges) over HTTP, 0 when no meter matches.
	 * @param name the meter name
	 * @param tags {@code tag:value} filters
	 */
	double meter(String name, String... tags) {
		StringBuilder path = new StringBuilder("/metrics/").append(name);
		for (int i = 0; i < tags.length; i++) {
			path.append((i == 0) ? '?' : '&').append("tag=").append(tags[i]);
		}
		var response = this.http.get().uri(path.toString()).retrieve().toEntity(JSON);
		if (response.getStatusCode().value() == 404) {
			return 0;
		}
		@SuppressWarnings("unchecked")
		List<Map<String, Object>> measurements = (List<Map<String, Object>>) response.getBody().get("measurements");
		return measurements.stream()
			.filter((m) -> m.get("statistic").equals("COUNT") || m.get("statistic").equals("VALUE"))
			.mapToDouble((m) -> ((Number) m.get("value")).doubleValue())
			.findFirst()
			.orElse(0);
	}

	@Override
	public void close() {
		this.context.close();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean
		LostEvents lostEvents() {
			return new LostEvents();
		}

	}

	/** Records every {@link LockLostEvent}. */
	static class LostEvents {

		final List<LockLostEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void onLost(LockLostEvent event) {
			this.events.add(event);
		}

	}

}
