package io.github.distributedlock.redlock;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.autoconfigure.RedlockAutoConfiguration;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.redis.EvictingRedisException;
import io.github.distributedlock.redis.MissingRedisPermissionException;
import io.github.distributedlock.redis.RedisPermissions;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.RedlockApplications;
import io.github.distributedlock.test.StartupFailures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The startup checks of the Redlock nodes that issues 41 and 43 asked for, on 3 real {@code redis-server}
 * processes this class shares (each test configures what it needs; {@link RedlockTopology#reset()} sets it back):
 * a node that may evict lock keys (the double grant it causes, reproduced, then refused at startup, and the opt-out),
 * and each node's ACL user (a missing channel permission fails the startup naming the node and the rule; a user
 * without {@code +config|get} starts with one WARN; a wrong password is a configuration error, not "votes once it
 * answers").
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockStartupChecksTests extends RedlockTopologyTests {

	private ApplicationContextRunner runner(String... urls) {
		return RedlockApplications.runner("250ms", urls);
	}

	private String[] urls() {
		return this.topology.urls().toArray(new String[0]);
	}

	private void evicting(int node, String policy) {
		this.topology.servers.get(node).admin().configSet("maxmemory", "4mb");
		this.topology.servers.get(node).admin().configSet("maxmemory-policy", policy);
	}

	/**
	 * Issue 41's reproduction: nodes 0 and 1 run with {@code --maxmemory 4mb --maxmemory-policy volatile-ttl};
	 * A holds the lock with a 30 s lease; the application caches data with longer TTLs on those two nodes, and
	 * Redis evicts the lock key there (the shortest TTL goes first); B is granted the lock while A still holds it
	 * by all it knows. A client whose startup check runs refuses those nodes.
	 */
	@Test
	void anEvictingNodeDropsAHeldLockSoASecondHolderIsGrantedItWhichTheStartupCheckRefuses() throws Exception {
		evicting(0, "volatile-ttl");
		evicting(1, "volatile-ttl");
		RedlockLockClient first = this.topology.client();
		RedlockLockClient second = this.topology.client();
		LockHandle held = RedlockTopology.acquired(first,
				RedlockTopology.request("evicted").lease(Duration.ofSeconds(30)).build());
		String value = "x".repeat(1024);
		StringBuilder evicted = new StringBuilder();
		for (int node = 0; node < 2; node++) {
			RedisServer server = this.topology.servers.get(node);
			for (int i = 0; i < 20_000 && this.topology.ownerOn(node, "evicted") != null; i++) {
				server.admin().setex("cache:" + i, 3600, value);
			}
			assertThat(this.topology.ownerOn(node, "evicted")).as("the lock key on node %d", node).isNull();
			String stats = server.admin().info("stats");
			assertThat(stats).containsPattern("evicted_keys:[1-9]");
			evicted.append(" n").append(node).append('=').append(stats.replaceAll("(?s).*evicted_keys:(\\d+).*", "$1"));
		}
		LockHandle twice = second.acquire(RedlockTopology.request("evicted").timeout(Duration.ZERO).build());
		assertThat(twice).as("B granted the lock A holds").isNotNull();
		assertThat(held.isLost()).isFalse();
		Duration left = ((RedlockHandle) held).remainingValidity();
		assertThat(left).isGreaterThan(Duration.ofSeconds(20));
		System.out.println("[faults] Redlock, volatile-ttl on 2 of 3 nodes: evicted_keys" + evicted + "; B granted "
				+ "the lock while A's isLost() is false with " + left.toMillis() + " ms of validity left");
		twice.close();
		RedlockLockClient checked = this.topology.client();
		assertThatExceptionOfType(EvictingRedisException.class).isThrownBy(checked::checkNodes)
			.withMessageContaining("Redis server Redlock node " + this.topology.name(0) + " may evict lock keys")
			.withMessageContaining("maxmemory-policy volatile-ttl");
	}

	@Test
	void aNodeThatMayEvictFailsTheStartupNamingItAndItsPolicy() {
		evicting(1, "allkeys-lru");
		runner(urls()).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(EvictingRedisException.class)
				.hasMessageContaining("Redlock node " + this.topology.name(1))
				.hasMessageContaining("allkeys-lru")
				.hasMessageContaining("evicts any key");
		});
	}

	@Test
	void theOptOutStartsWithOneWarnPerEvictingNode(CapturedOutput output) {
		evicting(2, "volatile-lru");
		runner(urls()).withPropertyValues("distributed-lock.allow-evicting-redis=true").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getOut().lines().filter((line) -> line.contains("may evict lock keys")))
				.singleElement()
				.asString()
				.contains("WARN")
				.contains("Redlock node " + this.topology.name(2))
				.contains("distributed-lock.allow-evicting-redis=true");
		});
	}

	@Test
	void aMemoryLimitWithNoevictionStartsQuietly(CapturedOutput output) {
		evicting(0, "noeviction");
		runner(urls()).run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("may evict lock keys");
	}

	@Test
	void aNodeUserWithoutTheChannelFailsTheStartupNamingTheNodeAndTheRule() {
		String rule = RedisPermissions.redlockAclRule("lock:");
		for (int node = 0; node < 3; node++) {
			this.topology.setUser(node, (node == 1) ? rule.replace("&lock:* ", "") : rule);
		}
		runner(this.topology.urlsOfUser()).run((context) -> {
			assertThat(context).hasFailed();
			MissingRedisPermissionException missing = (MissingRedisPermissionException) NestedExceptionUtils
				.getMostSpecificCause(context.getStartupFailure());
			assertThat(missing.getRefusals()).contains("Redlock node " + this.topology.name(1)
					+ ": publish on channel 'lock:__released': ERR The user executing the script can't publish to "
					+ "the channel mentioned in the command")
				.anyMatch((refusal) -> refusal.startsWith("Redlock node " + this.topology.name(1)
						+ ": subscribe to channel 'lock:__released': ") && refusal.contains("NOPERM"))
				.allMatch((refusal) -> refusal.startsWith("Redlock node " + this.topology.name(1)));
			assertThat(missing.getAclRule()).isEqualTo(rule);
			assertThat(missing.getUser()).contains("distributed-lock.redlock.nodes");
		});
	}

	@Test
	void springBootPrintsTheReportWithTheRedlockRule(CapturedOutput output) {
		String rule = RedisPermissions.redlockAclRule("lock:");
		for (int node = 0; node < 3; node++) {
			this.topology.setUser(node, rule.replace("&lock:* ", ""));
		}
		Map<String, Object> properties = new HashMap<>();
		properties.put("distributed-lock.store", "redlock");
		String[] urls = this.topology.urlsOfUser();
		for (int i = 0; i < urls.length; i++) {
			properties.put("distributed-lock.redlock.nodes[" + i + "]", urls[i]);
		}
		assertThat(StartupFailures.run(properties, RedlockApplication.class)).isNotNull();
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("The Redis user of the Redlock nodes (the user in each URL of distributed-lock.redlock.nodes) "
					+ "lacks permissions the distributed locks need")
			.contains("- Redlock node " + this.topology.name(0) + ": publish on channel 'lock:__released'")
			.contains("ACL SETUSER <user> " + rule)
			.doesNotContain(PASSWORD_IN_URL);
	}

	private static final String PASSWORD_IN_URL = ":" + RedlockTopology.PASSWORD + "@";

	@Test
	void theRedlockRuleStartsWithoutAWordAboutPermissions(CapturedOutput output) {
		String rule = RedisPermissions.redlockAclRule("lock:");
		for (int node = 0; node < 3; node++) {
			this.topology.setUser(node, rule);
		}
		runner(this.topology.urlsOfUser()).run((context) -> {
			assertThat(context).hasNotFailed();
			RedlockTopology.acquired(context.getBean(RedlockLockClient.class), RedlockTopology.request("ruled").build())
				.close();
		});
		assertThat(output).doesNotContain("NOPERM").doesNotContain("not checked").doesNotContain("cannot be read");
	}

	@Test
	void aNodeUserWithoutConfigGetStartsWithOneWarnSayingWhatWasNotChecked(CapturedOutput output) {
		String rule = RedisPermissions.redlockAclRule("lock:");
		for (int node = 0; node < 3; node++) {
			this.topology.setUser(node, (node == 0) ? rule.replace(" +config|get", "") : rule);
		}
		runner(this.topology.urlsOfUser()).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.getOut().lines().filter((line) -> line.contains("may evict lock keys")))
				.singleElement()
				.asString()
				.contains("WARN")
				.contains("Whether Redis server Redlock node " + this.topology.name(0) + " may evict lock keys")
				.contains("is not checked")
				.contains("add +config|get");
		});
	}

	@Test
	void aWrongPasswordIsAConfigurationErrorNotANodeThatVotesOnceItAnswers(CapturedOutput output) {
		String rule = RedisPermissions.redlockAclRule("lock:");
		for (int node = 0; node < 3; node++) {
			this.topology.setUser(node, rule);
		}
		runner(this.topology.urlsOfUser(2, "wrong")).run((context) -> {
			assertThat(context).hasNotFailed();
			List<String> lines = output.getOut().lines().filter((line) -> line.contains(this.topology.name(2))).toList();
			assertThat(lines).anyMatch((line) -> line.contains("ERROR")
					&& line.contains("Redlock node " + this.topology.name(2)
							+ " refuses this client's credentials or permissions (WRONGPASS")
					&& line.contains("a configuration error that will not fix itself"));
			assertThat(lines).noneMatch((line) -> line.contains("votes once it answers"));
			// the two other nodes are a quorum
			RedlockTopology.acquired(context.getBean(RedlockLockClient.class), RedlockTopology.request("quorum").build())
				.close();
		});
	}

	@ImportAutoConfiguration({ RedlockAutoConfiguration.class, DistributedLockAutoConfiguration.class })
	static class RedlockApplication {

	}

}
