package io.github.distributedlock.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.github.distributedlock.redlock.RedlockLockClient;
import io.github.distributedlock.redlock.RedlockNodeStatus;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code distributedLock} health contributor of the Redlock store ({@code distributed-lock.store=redlock}):
 * {@code UP} while a quorum of its nodes answers a {@code PING}, which is what locking needs, {@code DOWN} below
 * a quorum. Its details: each node's state ({@code up}, {@code not answering: <why>}, or that it refuses the
 * client's credentials or permissions, a configuration error), how many answer, the quorum, how many nodes' release
 * notifications the client hears, and the client id. A node down while a quorum answers is {@code UP}, and named
 * in the details: Redlock exists to work through that. The pings go to every node at once, each bounded by the
 * per-node timeout. Thread-safe.
 */
public class RedlockHealthIndicator extends AbstractHealthIndicator {

	private final RedlockLockClient client;

	/**
	 * Creates the indicator.
	 * @param client the Redlock client whose nodes to ask
	 */
	public RedlockHealthIndicator(RedlockLockClient client) {
		super("Distributed lock health check failed");
		this.client = Objects.requireNonNull(client, "client must not be null");
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		List<RedlockNodeStatus> statuses = this.client.pingNodes();
		Map<String, String> nodes = new LinkedHashMap<>();
		int answering = 0;
		for (RedlockNodeStatus status : statuses) {
			nodes.put(status.node(), status.state());
			answering += status.answering() ? 1 : 0;
		}
		int quorum = this.client.getQuorum();
		builder.withDetail("nodes", nodes)
			.withDetail("answering", answering + " of " + statuses.size())
			.withDetail("quorum", quorum)
			.withDetail("releaseSubscriptions", this.client.listeningNodes() + " of " + statuses.size() + " listening")
			.withDetail("clientId", this.client.getClientId());
		if (answering >= quorum) {
			builder.up();
		}
		else {
			builder.down();
		}
	}

}
