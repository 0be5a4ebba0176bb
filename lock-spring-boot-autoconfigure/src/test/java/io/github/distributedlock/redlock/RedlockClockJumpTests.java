package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.test.FakeClock;
import io.github.distributedlock.test.RedisServer;
import io.lettuce.core.SetArgs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redlock on 3 real {@code redis-server} processes, node 0 on a {@link FakeClock} (libfaketime): a node whose clock
 * jumps forward, as a negative control (two holders at once, the tokens fence the first). Skipped when Debian's
 * {@code faketime} is not installed.
 */
class RedlockClockJumpTests extends RedlockTopologyTests {

	private FakeClock clock;

	@Override
	int nodes() {
		return 3;
	}

	@Override
	RedlockTopology newTopology() {
		this.clock = FakeClock.create();
		return new RedlockTopology(nodes(), (node) -> (node == 0) ? this.clock.startRedis() : RedisServer.start());
	}

	@BeforeEach
	void resetClock() {
		this.clock.reset();
	}

	@AfterAll
	void deleteClock() {
		if (this.clock != null) {
			this.clock.close();
		}
	}

	@Test
	void theJumpMovesTheNodesTimeAndExpiresItsKeysEarly() {
		RedisServer jumping = this.topology.servers.get(0);
		RedisServer steady = this.topology.servers.get(1);
		jumping.admin().set("k", "v", SetArgs.Builder.px(5000));
		steady.admin().set("k", "v", SetArgs.Builder.px(5000));
		this.clock.jump(Duration.ofMinutes(1));
		long ahead = micros(jumping.admin().time()) - micros(steady.admin().time());
		assertThat(ahead).as("TIME of the jumped node ahead, in µs").isBetween(59_000_000L, 61_000_000L);
		assertThat(jumping.admin().exists("k")).as("a 5 s key expired on the jumped clock").isZero();
		assertThat(steady.admin().exists("k")).isOne();
	}

	@Test
	void aNodeWhoseClockJumpsForwardLetsASecondHolderInAndTheTokensFenceTheFirst() throws Exception {
		RedlockFaultChecks.clockJumpedForward(this.topology, this.clock);
	}

	private static long micros(List<String> time) {
		return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
	}

}
