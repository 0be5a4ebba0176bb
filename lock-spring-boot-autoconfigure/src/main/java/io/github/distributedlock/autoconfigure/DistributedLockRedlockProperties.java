package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of the Redlock store ({@code distributed-lock.redlock.*}), read with
 * {@code distributed-lock.store=redlock}. See {@code docs/redlock.md}. Bound once by Spring Boot; not for sharing
 * between threads while bound.
 */
@ConfigurationProperties("distributed-lock.redlock")
public class DistributedLockRedlockProperties {

	/**
	 * The independent Redis primaries a lock is held on (at least 3, an odd number recommended; the quorum is
	 * N/2 + 1 of them): redis:// or rediss:// URLs, with user and password in the URL
	 * (redis://user:password@host:6379).
	 */
	private List<String> nodes = new ArrayList<>();

	/**
	 * How long one node's answer to one command is waited for, well below the lease: a node slower than this
	 * counts as not voting. A bare number means milliseconds.
	 */
	private Duration nodeTimeout = Duration.ofMillis(100);

	/**
	 * The clock drift allowed for, as a fraction of the lease: a hold's validity is lease - elapsed - (drift-factor
	 * * lease + 2 ms).
	 */
	private double driftFactor = 0.01;

	/**
	 * The longest random delay between two acquisition rounds of a waiting acquisition: after a split vote; one
	 * refused by a holder is woken by the holder's release notification, and votes again after half to all of
	 * this delay when none comes. A bare number means milliseconds.
	 */
	private Duration retryDelay = Duration.ofMillis(200);

	/**
	 * The shortest validity an acquisition accepts: one that won its quorum with less validity left (a slow
	 * round) is released and tried again. A bare number means milliseconds.
	 */
	private Duration minValidity = Duration.ofMillis(50);

	/**
	 * Name of the SSL bundle (spring.ssl.bundle.*) whose trust material, and key material for a client
	 * certificate, every rediss:// node is connected with; its protocols and ciphers apply too. Without it,
	 * rediss:// nodes are trusted by the JVM's default trust store; redis:// nodes ignore it.
	 */
	private @Nullable String sslBundle;

	/**
	 * Creates the properties with their defaults; Spring Boot binds them.
	 */
	public DistributedLockRedlockProperties() {
	}

	/**
	 * Returns the URLs of the Redis primaries.
	 * @return the node URLs, empty by default
	 */
	public List<String> getNodes() {
		return this.nodes;
	}

	/**
	 * Sets the URLs of the Redis primaries.
	 * @param nodes the node URLs
	 */
	public void setNodes(List<String> nodes) {
		this.nodes = nodes;
	}

	/**
	 * Returns how long one node's answer is waited for.
	 * @return the per-node timeout, 100 ms by default
	 */
	public Duration getNodeTimeout() {
		return this.nodeTimeout;
	}

	/**
	 * Sets how long one node's answer is waited for.
	 * @param nodeTimeout the per-node timeout
	 */
	public void setNodeTimeout(Duration nodeTimeout) {
		this.nodeTimeout = nodeTimeout;
	}

	/**
	 * Returns the clock drift allowed for, as a fraction of the lease.
	 * @return the drift factor, 0.01 by default
	 */
	public double getDriftFactor() {
		return this.driftFactor;
	}

	/**
	 * Sets the clock drift allowed for, as a fraction of the lease.
	 * @param driftFactor the drift factor, at least 0 and below 0.5
	 */
	public void setDriftFactor(double driftFactor) {
		this.driftFactor = driftFactor;
	}

	/**
	 * Returns the longest random delay between two acquisition rounds.
	 * @return the longest retry delay, 200 ms by default
	 */
	public Duration getRetryDelay() {
		return this.retryDelay;
	}

	/**
	 * Sets the longest random delay between two acquisition rounds.
	 * @param retryDelay the longest retry delay
	 */
	public void setRetryDelay(Duration retryDelay) {
		this.retryDelay = retryDelay;
	}

	/**
	 * Returns the least validity an acquisition may keep.
	 * @return the minimum validity, 50 ms by default
	 */
	public Duration getMinValidity() {
		return this.minValidity;
	}

	/**
	 * Sets the least validity an acquisition may keep.
	 * @param minValidity the minimum validity
	 */
	public void setMinValidity(Duration minValidity) {
		this.minValidity = minValidity;
	}

	/**
	 * Returns the name of the SSL bundle the {@code rediss://} nodes are connected with.
	 * @return the bundle's name, {@code null} by default (the JVM's default trust store)
	 */
	public @Nullable String getSslBundle() {
		return this.sslBundle;
	}

	/**
	 * Sets the name of the SSL bundle the {@code rediss://} nodes are connected with.
	 * @param sslBundle the name of a bundle under {@code spring.ssl.bundle.*}, or {@code null} for none
	 */
	public void setSslBundle(@Nullable String sslBundle) {
		this.sslBundle = sslBundle;
	}

}
