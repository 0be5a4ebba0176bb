package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.github.distributedlock.test.FakeClock;
import io.github.distributedlock.test.RedisServer;
import io.lettuce.core.SetArgs;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redlock on 3 real {@code redis-server} processes, node 0 on a {@link FakeClock} (libfaketime): a node whose clock
 * jumps forward, as a negative control (two holders at once, the tokens fence the first), and a node whose clock is
 * a constant 30 s ahead while another restarts empty (the tokens still increase). Each test is skipped,
 * naming the package, when Debian's {@code faketime} is not installed (the nodes then run on the real clock).
 */
class RedlockClockJumpTests extends RedlockTopologyTests {

	/** Node 0's clock; {@code null} where faketime is not installed (each test is skipped, naming it). */
	private @Nullable FakeClock clock;

	@Override
	RedlockTopology newTopology() {
		this.clock = FakeClock.installed() ? FakeClock.create() : null;
		return new RedlockTopology(nodes(),
				(node) -> (node == 0 && this.clock != null) ? this.clock.startRedis() : RedisServer.start());
	}

	@BeforeEach
	void resetClock() {
		FakeClock.assumeInstalled();
		Objects.requireNonNull(this.clock).reset();
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
		Objects.requireNonNull(this.clock).jump(Duration.ofMinutes(1));
		long ahead = micros(jumping.admin().time()) - micros(steady.admin().time());
		assertThat(ahead).as("TIME of the jumped node ahead, in µs").isBetween(59_000_000L, 61_000_000L);
		assertThat(jumping.admin().exists("k")).as("a 5 s key expired on the jumped clock").isZero();
		assertThat(steady.admin().exists("k")).isOne();
	}

	@Test
	void aNodeWhoseClockJumpsForwardLetsASecondHolderInAndTheTokensFenceTheFirst() throws Exception {
		RedlockFaultChecks.clockJumpedForward(this.topology, Objects.requireNonNull(this.clock));
	}

	@Test
	void aTokenDoesNotGoBackWhenOneNodeRestartsEmptyAndAnotherClockIsAhead() throws Exception {
		RedlockFaultChecks.tokenAfterAMinorityLostItsCounter(this.topology, Objects.requireNonNull(this.clock));
	}

	private static long micros(List<String> time) {
		return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
	}

}
