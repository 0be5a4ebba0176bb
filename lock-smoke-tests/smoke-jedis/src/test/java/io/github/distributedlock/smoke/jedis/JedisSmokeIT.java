package io.github.distributedlock.smoke.jedis;

import java.time.Duration;

import io.github.distributedlock.smoke.LockedSections;
import io.github.distributedlock.smoke.RepackagedJar;
import io.github.distributedlock.smoke.SmokeApplication;
import io.github.distributedlock.smoke.SmokeRedis;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter on Jedis, Lettuce excluded: two instances with the README's properties add to one counter from four
 * threads each through {@code DistributedLockTemplate}; no add is lost.
 */
class JedisSmokeIT {

	@Test
	void twoInstancesOnJedisAddToOneCounterWithoutLosingAnAdd() {
		try (SmokeRedis redis = SmokeRedis.start();
				SmokeApplication a = SmokeApplication.start("jedis-a", redis, "--smoke.instance=jedis-a");
				SmokeApplication b = SmokeApplication.start("jedis-b", redis, "--smoke.instance=jedis-b")) {
			a.awaitStarted();
			b.awaitStarted();
			assertThat(a.awaitExit(Duration.ofSeconds(90))).as("jedis-a's exit code").isZero();
			assertThat(b.awaitExit(Duration.ofSeconds(90))).as("jedis-b's exit code").isZero();
			int adds = 2 * JedisApplication.THREADS * JedisApplication.ADDS;
			LockedSections.assertAlwaysAlone(adds, a, b);
			assertThat(redis.get("smoke:counter")).as("the counter after every add").isEqualTo(Integer.toString(adds));
			a.assertNoErrors();
			b.assertNoErrors();
		}
	}

	@Test
	void theApplicationRunsOnJedisWithoutLettuce() {
		assertThat(RepackagedJar.libraries()).anyMatch((jar) -> jar.startsWith("jedis-"))
			.noneMatch((jar) -> jar.startsWith("lettuce-core-"));
	}

}
