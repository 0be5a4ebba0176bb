package io.github.distributedlock.redlock;

import java.time.Duration;

import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.test.RedisServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redlock store sends its scripts by SHA1 ({@code EVALSHA}) once a node has them, and with their text
 * ({@code EVAL}) to a node that answers {@code NOSCRIPT} (restarted empty, or its script cache flushed): read
 * from each node's {@code INFO commandstats} on 3 real {@code redis-server} processes.
 */
class RedlockScriptCacheTests extends RedlockTopologyTests {

	@Test
	void votesRecordsAndReleasesAreSentBySha1() throws Exception {
		RedlockLockClient client = this.topology.client();
		this.topology.servers.forEach((server) -> server.admin().configResetstat());
		for (int i = 0; i < 3; i++) {
			RedlockTopology.acquired(client, RedlockTopology.request("sha").build()).close();
		}
		this.topology.awaitGone("sha");
		for (RedisServer server : this.topology.servers) {
			// every vote by SHA1 (the warm-up ran each script there); a node that had never recorded a token
			// loads record.lua by its text once, and a release to a node whose vote had not answered yet sends
			// its text (at most once per acquisition): with EVAL every time, 6 to 9
			assertThat(RedlockTopology.calls(server, "evalsha")).as("EVALSHA on %s", server.port()).isGreaterThanOrEqualTo(3);
			assertThat(RedlockTopology.calls(server, "eval")).as("EVAL on %s", server.port()).isLessThanOrEqualTo(4);
		}
	}

	@Test
	void aNodeWhoseScriptCacheWasFlushedStillGrants() throws Exception {
		RedlockLockClient client = this.topology.client();
		RedisServer flushed = this.topology.servers.get(0);
		flushed.admin().scriptFlush();
		flushed.admin().configResetstat();
		// node 1 refuses: the quorum needs node 0's grant, which it can give only by the text
		this.topology.occupy(1, "flushed", Duration.ofSeconds(30));
		try (LockHandle handle = RedlockTopology.acquired(client, RedlockTopology.request("flushed").build())) {
			assertThat(this.topology.ownerOn(0, "flushed")).startsWith(client.getClientId());
		}
		// the vote (which records the token the warmed-up client proposed): NOSCRIPT, then the text; the release
		// likewise; a record round too (3 each) only if the proposal fell short. The release returns once a quorum
		// has answered, so node 0's (NOSCRIPT, then the text) may still be on its way
		RedlockTopology.soon().untilAsserted(() -> {
			assertThat(RedlockTopology.calls(flushed, "eval")).isBetween(2L, 3L);
			assertThat(RedlockTopology.calls(flushed, "evalsha")).isEqualTo(RedlockTopology.calls(flushed, "eval"));
		});
		// from now on the node has them
		flushed.admin().configResetstat();
		this.topology.servers.get(1).admin().del(RedlockTopology.PREFIX + "flushed");
		RedlockTopology.acquired(client, RedlockTopology.request("flushed").build()).close();
		this.topology.awaitGone("flushed");
		assertThat(RedlockTopology.calls(flushed, "eval")).isZero();
	}

}
