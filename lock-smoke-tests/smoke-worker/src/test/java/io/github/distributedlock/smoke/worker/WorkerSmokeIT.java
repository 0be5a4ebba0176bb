package io.github.distributedlock.smoke.worker;

import java.time.Duration;

import io.github.distributedlock.smoke.RepackagedJar;
import io.github.distributedlock.smoke.SmokeRedis;
import io.github.distributedlock.smoke.TwoInstances;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The smallest application users deploy: the starter alone, a {@code @Scheduled} job, no web, no Actuator, no
 * Jackson; two instances with the README's properties.
 */
class WorkerSmokeIT {

	@Test
	void twoWorkersStartWithTheReadmePropertiesRunTheJobOneAtATimeAndExitCleanly() {
		try (SmokeRedis redis = SmokeRedis.start(); TwoInstances workers = TwoInstances.start("worker", redis)) {
			workers.awaitCleanExits(Duration.ofSeconds(90));
			// six seconds each, a run per second: at least four runs in all, never two at once
			workers.assertAlwaysAloneWithoutErrors(4);
			assertThat(redis.get("smoke:inside")).as("callers left inside").isEqualTo("0");
		}
	}

	@Test
	void theWorkerRunsWithoutJacksonGsonWebOrActuator() {
		assertThat(RepackagedJar.libraries()).anyMatch((jar) -> jar.startsWith("lock-spring-boot-autoconfigure-"))
			.noneMatch((jar) -> jar.startsWith("jackson-") || jar.startsWith("gson-"))
			.noneMatch((jar) -> jar.startsWith("spring-web") || jar.startsWith("spring-boot-actuator")
					|| jar.startsWith("tomcat-") || jar.startsWith("reactor-netty"));
	}

}
