package io.github.distributedlock.smoke.worker;

import java.time.Duration;

import io.github.distributedlock.smoke.LockedSections;
import io.github.distributedlock.smoke.RepackagedJar;
import io.github.distributedlock.smoke.SmokeApplication;
import io.github.distributedlock.smoke.SmokeRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The smallest application users deploy: the starter alone, a {@code @Scheduled} job, no web, no Actuator, no
 * Jackson; two instances with the README's properties.
 */
class WorkerSmokeIT {

	@Test
	void twoWorkersStartWithTheReadmePropertiesRunTheJobOneAtATimeAndExitCleanly() {
		try (SmokeRedis redis = SmokeRedis.start();
				SmokeApplication a = SmokeApplication.start("worker-a", redis, "--smoke.instance=worker-a");
				SmokeApplication b = SmokeApplication.start("worker-b", redis, "--smoke.instance=worker-b")) {
			a.awaitStarted();
			b.awaitStarted();
			assertThat(a.awaitExit(Duration.ofSeconds(90))).as("worker-a's exit code").isZero();
			assertThat(b.awaitExit(Duration.ofSeconds(90))).as("worker-b's exit code").isZero();
			// six seconds each, a run per second: at least four runs in all, never two at once
			LockedSections.assertAlwaysAlone(4, a, b);
			a.assertNoErrors();
			b.assertNoErrors();
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
