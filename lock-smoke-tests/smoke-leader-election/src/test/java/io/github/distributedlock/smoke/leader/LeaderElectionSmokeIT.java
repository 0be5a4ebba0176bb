package io.github.distributedlock.smoke.leader;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.smoke.SmokeApplication;
import io.github.distributedlock.smoke.SmokeRedis;
import io.github.distributedlock.smoke.TwoInstances;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Integration's leader election on the starter's {@code LockRegistry}: two instances with the README's
 * properties elect exactly one leader; the leader stopped (SIGTERM), the other takes over.
 */
class LeaderElectionSmokeIT {

	private static final String GRANTED = "leadership of billing granted to ";

	@Test
	void twoInstancesElectOneLeaderAndTheOtherTakesOverWhenTheLeaderStops() {
		try (SmokeRedis redis = SmokeRedis.start(); TwoInstances candidates = TwoInstances.start("leader", redis)) {
			SmokeApplication a = candidates.a();
			SmokeApplication b = candidates.b();
			Awaitility.await("a leader").atMost(Duration.ofSeconds(30)).until(() -> grants(a, b) == 1);
			// the other keeps trying every heart beat (200 ms): still one leader ten heart beats on
			Awaitility.await("still one leader").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
				.until(() -> grants(a, b) == 1);
			SmokeApplication leader = a.hasLine(GRANTED) ? a : b;
			SmokeApplication follower = (leader == a) ? b : a;

			long stopped = System.nanoTime();
			assertThat(leader.stop(Duration.ofSeconds(60))).as(leader.name() + "'s exit code after SIGTERM")
				.isEqualTo(TwoInstances.SIGTERM_EXIT_CODE);
			follower.awaitLine(GRANTED + follower.name(), Duration.ofSeconds(30));
			System.out.printf("%s took over %d ms after %s was sent SIGTERM%n", follower.name(),
					Duration.ofNanos(System.nanoTime() - stopped).toMillis(), leader.name());
			assertThat(leader.lines()).anyMatch((line) -> line.contains("leadership of billing revoked from " + leader.name()));
			assertThat(grants(a, b)).as("grants in all").isEqualTo(2);

			candidates.stop();
			a.assertNoErrors();
			b.assertNoErrors();
		}
	}

	private static long grants(SmokeApplication... instances) {
		return List.of(instances).stream()
			.flatMap((instance) -> instance.lines().stream())
			.filter((line) -> line.contains(GRANTED))
			.count();
	}

}
