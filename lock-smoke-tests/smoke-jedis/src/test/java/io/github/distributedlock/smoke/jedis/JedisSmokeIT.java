package io.github.distributedlock.smoke.jedis;

import java.time.Duration;

import io.github.distributedlock.smoke.RepackagedJar;
import io.github.distributedlock.smoke.SmokeRedis;
import io.github.distributedlock.smoke.TwoInstances;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter on Jedis, Lettuce excluded: two instances with the README's properties add to one counter from four
 * threads each through {@code DistributedLockTemplate}; no add is lost.
 */
class JedisSmokeIT {

	@Test
	void twoInstancesOnJedisAddToOneCounterWithoutLosingAnAdd() {
		try (SmokeRedis redis = SmokeRedis.start(); TwoInstances counters = TwoInstances.start("jedis", redis)) {
			counters.awaitCleanExits(Duration.ofSeconds(90));
			int adds = 2 * JedisApplication.THREADS * JedisApplication.ADDS;
			counters.assertAlwaysAloneWithoutErrors(adds);
			assertThat(redis.get("smoke:counter")).as("the counter after every add").isEqualTo(Integer.toString(adds));
		}
	}

	@Test
	void theApplicationRunsOnJedisWithoutLettuce() {
		assertThat(RepackagedJar.libraries()).anyMatch((jar) -> jar.startsWith("jedis-"))
			.noneMatch((jar) -> jar.startsWith("lettuce-core-"));
	}

}
