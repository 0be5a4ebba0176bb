package io.github.distributedlock.smoke.kotlin;

import java.time.Duration;

import io.github.distributedlock.smoke.SmokeRedis;
import io.github.distributedlock.smoke.TwoInstances;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Kotlin application: two instances with the README's properties post to one account from ten coroutines each,
 * through a {@code suspend fun} under {@code @DistributedLock} and through {@code withLock}.
 */
class KotlinSmokeIT {

	@Test
	void twoInstancesPostOneAtATimeThroughTheSuspendFunctionAndWithLock() {
		try (SmokeRedis redis = SmokeRedis.start(); TwoInstances ledgers = TwoInstances.start("kotlin", redis)) {
			ledgers.awaitCleanExits(Duration.ofSeconds(90));
			ledgers.assertAlwaysAloneWithoutErrors(20);
			assertThat(ledgers.a().lines()).anyMatch((line) -> line.endsWith("(suspend fun)"))
				.anyMatch((line) -> line.endsWith("(withLock)"));
			assertThat(redis.get("smoke:inside:account-1")).as("callers left inside").isEqualTo("0");
		}
	}

}
