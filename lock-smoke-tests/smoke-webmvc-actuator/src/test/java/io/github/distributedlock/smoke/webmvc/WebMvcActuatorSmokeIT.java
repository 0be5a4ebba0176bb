package io.github.distributedlock.smoke.webmvc;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.smoke.LockedSections;
import io.github.distributedlock.smoke.SmokeHttp;
import io.github.distributedlock.smoke.SmokeRedis;
import io.github.distributedlock.smoke.TwoInstances;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A servlet web application with Actuator: two instances with the README's properties pay one order at a time,
 * and Actuator shows the locks, their health and their meters over HTTP.
 */
class WebMvcActuatorSmokeIT {

	@Test
	void twoInstancesPayOneOrderAtATimeAndActuatorShowsTheLocksHealthAndMeters() {
		try (SmokeRedis redis = SmokeRedis.start();
				TwoInstances shops = TwoInstances.start("web", redis, "--server.port=0", "--server.address=127.0.0.1",
						"--management.endpoints.web.exposure.include=health,distributedlocks,metrics",
						"--management.endpoint.health.show-components=always",
						"--management.endpoint.health.show-details=always")) {
			int portA = shops.a().httpPort();
			int portB = shops.b().httpPort();
			List<CompletableFuture<HttpResponse<String>>> payments = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				payments.add(SmokeHttp.postAsync(portA, "/orders/42/pay?millis=150"));
				payments.add(SmokeHttp.postAsync(portB, "/orders/42/pay?millis=150"));
			}
			payments.forEach((payment) -> assertThat(payment.join().statusCode()).isEqualTo(200));
			LockedSections.assertAlwaysAlone(8, shops.a(), shops.b());

			// while web-a pays a long one, it lists the lock, and web-b sees it held in Redis under the README's prefix
			CompletableFuture<HttpResponse<String>> longPayment = SmokeHttp.postAsync(portA, "/orders/long/pay?millis=3000");
			Awaitility.await("web-a listing the lock order:long")
				.atMost(Duration.ofSeconds(30))
				.until(() -> SmokeHttp.get(portA, "/actuator/distributedlocks").body().contains("order:long"));
			HttpResponse<String> held = SmokeHttp.get(portB, "/actuator/distributedlocks/order:long");
			assertThat(held.statusCode()).isEqualTo(200);
			assertThat(held.body()).contains("\"redisKey\":\"lock:order:long\"").contains("\"held\":true");
			assertThat(longPayment.join().statusCode()).isEqualTo(200);

			HttpResponse<String> health = SmokeHttp.get(portA, "/actuator/health/distributedLock");
			assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
			assertThat(health.body()).contains("\"status\":\"UP\"");
			HttpResponse<String> acquire = SmokeHttp.get(portA, "/actuator/metrics/distributed.lock.acquire");
			assertThat(acquire.statusCode()).as(acquire.body()).isEqualTo(200);
			assertThat(acquire.body()).contains("\"COUNT\"").contains("\"order\"").contains("\"acquired\"");
			HttpResponse<String> active = SmokeHttp.get(portA, "/actuator/metrics/distributed.lock.active");
			assertThat(active.statusCode()).as(active.body()).isEqualTo(200);

			shops.stop();
			shops.assertAlwaysAloneWithoutErrors(9);
		}
	}

}
