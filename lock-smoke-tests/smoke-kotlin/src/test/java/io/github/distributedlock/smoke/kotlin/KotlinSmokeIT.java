package io.github.distributedlock.smoke.kotlin;

import java.time.Duration;

import io.github.distributedlock.smoke.LockedSections;
import io.github.distributedlock.smoke.SmokeApplication;
import io.github.distributedlock.smoke.SmokeRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Kotlin application: two instances with the README's properties post to one account from ten coroutines each,
 * through a {@code suspend fun} under {@code @DistributedLock} and through {@code withLock}.
 */
class KotlinSmokeIT {

	@Test
	void twoInstancesPostOneAtATimeThroughTheSuspendFunctionAndWithLock() {
		try (SmokeRedis redis = SmokeRedis.start();
				SmokeApplication a = SmokeApplication.start("kotlin-a", redis, "--smoke.instance=kotlin-a");
				SmokeApplication b = SmokeApplication.start("kotlin-b", redis, "--smoke.instance=kotlin-b")) {
			a.awaitStarted();
			b.awaitStarted();
			assertThat(a.awaitExit(Duration.ofSeconds(90))).as("kotlin-a's exit code").isZero();
			assertThat(b.awaitExit(Duration.ofSeconds(90))).as("kotlin-b's exit code").isZero();
			LockedSections.assertAlwaysAlone(20, a, b);
			assertThat(a.lines()).anyMatch((line) -> line.endsWith("(suspend fun)"))
				.anyMatch((line) -> line.endsWith("(withLock)"));
			assertThat(redis.get("smoke:inside:account-1")).as("callers left inside").isEqualTo("0");
			a.assertNoErrors();
			b.assertNoErrors();
		}
	}

}
