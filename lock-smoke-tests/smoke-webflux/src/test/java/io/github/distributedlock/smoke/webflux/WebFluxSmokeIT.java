package io.github.distributedlock.smoke.webflux;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.smoke.FreePort;
import io.github.distributedlock.smoke.LockedSections;
import io.github.distributedlock.smoke.SmokeApplication;
import io.github.distributedlock.smoke.SmokeHttp;
import io.github.distributedlock.smoke.SmokeRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A WebFlux application: two instances with the README's properties, called at once through the annotated
 * {@code Mono} method and through {@code ReactiveDistributedLockTemplate}, update one SKU at a time.
 */
class WebFluxSmokeIT {

	@Test
	void twoInstancesUpdateOneSkuAtATimeThroughTheMonoMethodAndTheReactiveTemplate() {
		int portA = FreePort.next();
		int portB = FreePort.next();
		try (SmokeRedis redis = SmokeRedis.start();
				SmokeApplication a = SmokeApplication.start("webflux-a", redis, arguments("webflux-a", portA));
				SmokeApplication b = SmokeApplication.start("webflux-b", redis, arguments("webflux-b", portB))) {
			a.awaitStarted();
			b.awaitStarted();

			List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				for (int port : new int[] { portA, portB }) {
					calls.add(SmokeHttp.postAsync(port, "/stock/sku-1/reserve"));
					calls.add(SmokeHttp.postAsync(port, "/stock/sku-1/restock"));
				}
			}
			calls.forEach((call) -> assertThat(call.join().statusCode()).as(call.join().body()).isEqualTo(200));
			assertThat(calls).anyMatch((call) -> call.join().body().startsWith("reserved sku-1 by"))
				.anyMatch((call) -> call.join().body().startsWith("restocked sku-1 by"));
			LockedSections.assertAlwaysAlone(16, a, b);
			assertThat(redis.get("smoke:inside:sku-1")).as("callers left inside").isEqualTo("0");

			assertThat(a.stop(Duration.ofSeconds(60))).as("webflux-a's exit code after SIGTERM").isEqualTo(143);
			assertThat(b.stop(Duration.ofSeconds(60))).as("webflux-b's exit code after SIGTERM").isEqualTo(143);
			a.assertNoErrors();
			b.assertNoErrors();
		}
	}

	private static String[] arguments(String instance, int port) {
		return new String[] { "--smoke.instance=" + instance, "--server.port=" + port, "--server.address=127.0.0.1" };
	}

}
