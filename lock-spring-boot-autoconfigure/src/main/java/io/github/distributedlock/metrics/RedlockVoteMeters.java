package io.github.distributedlock.metrics;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.github.distributedlock.redlock.RedlockVoteObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The per-node meters of the Redlock store, fed by its client as a {@link RedlockVoteObserver}:
 * {@code distributed.lock.redlock.votes}, a counter of the votes each node answered, with tags {@code node}
 * ({@code host:port}) and {@code outcome} = {@code granted} | {@code refused} | {@code timeout} | {@code error}.
 * Every node's four counters exist at zero from the startup. The tag {@code node} has one value per configured
 * node, so its cardinality is bounded. Thread-safe.
 */
public final class RedlockVoteMeters implements RedlockVoteObserver {

	/** Name of the counter of votes per node and outcome. */
	public static final String VOTES = "distributed.lock.redlock.votes";

	private final MeterRegistry registry;

	/** The counters met so far, by node and outcome: no registry lookup per vote. */
	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	/**
	 * Creates the meters in a registry.
	 * @param registry where they are registered
	 */
	public RedlockVoteMeters(MeterRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
	}

	@Override
	public void nodes(List<String> nodes) {
		for (String node : nodes) {
			for (VoteOutcome outcome : VoteOutcome.values()) {
				counter(node, outcome);
			}
		}
	}

	@Override
	public void voted(String node, VoteOutcome outcome) {
		counter(node, outcome).increment();
	}

	private Counter counter(String node, VoteOutcome outcome) {
		return this.counters.computeIfAbsent(node + " " + outcome.tag(), (key) -> Counter.builder(VOTES)
			.description("Votes of Redlock nodes, by node and outcome")
			.tag("node", node)
			.tag("outcome", outcome.tag())
			.register(this.registry));
	}

}
