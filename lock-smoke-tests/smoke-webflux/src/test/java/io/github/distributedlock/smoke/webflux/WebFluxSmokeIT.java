package io.github.distributedlock.smoke.webflux;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributedlock.smoke.SmokeHttp;
import io.github.distributedlock.smoke.SmokeRedis;
import io.github.distributedlock.smoke.TwoInstances;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A WebFlux application: two instances with the README's properties, called at once through the annotated
 * {@code Mono} method and through {@code ReactiveDistributedLockTemplate}, update one SKU at a time.
 */
class WebFluxSmokeIT {

	@Test
	void twoInstancesUpdateOneSkuAtATimeThroughTheMonoMethodAndTheReactiveTemplate() {
		try (SmokeRedis redis = SmokeRedis.start();
				TwoInstances stores = TwoInstances.start("webflux", redis, "--server.port=0",
						"--server.address=127.0.0.1")) {
			List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				for (int port : new int[] { stores.a().httpPort(), stores.b().httpPort() }) {
					calls.add(SmokeHttp.postAsync(port, "/stock/sku-1/reserve"));
					calls.add(SmokeHttp.postAsync(port, "/stock/sku-1/restock"));
				}
			}
			calls.forEach((call) -> assertThat(call.join().statusCode()).as(call.join().body()).isEqualTo(200));
			assertThat(calls).anyMatch((call) -> call.join().body().startsWith("reserved sku-1 by"))
				.anyMatch((call) -> call.join().body().startsWith("restocked sku-1 by"));
			assertThat(redis.get("smoke:inside:sku-1")).as("callers left inside").isEqualTo("0");
			stores.stop();
			stores.assertAlwaysAloneWithoutErrors(16);
		}
	}

}
