package io.github.distributedlock.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of the {@code distributedlocks} Actuator endpoint ({@code distributed-lock.endpoint.*}).
 */
@ConfigurationProperties("distributed-lock.endpoint")
public class DistributedLockEndpointProperties {

	/**
	 * Creates the properties with their defaults; Spring Boot binds them.
	 */
	public DistributedLockEndpointProperties() {
	}

	/**
	 * Whether DELETE on the distributedlocks endpoint may force-release a lock, whoever holds it; when off, it
	 * is refused with 403 and the lock is untouched.
	 */
	private boolean forceReleaseEnabled = false;

	/**
	 * Returns whether the endpoint may force-release locks.
	 * @return {@code false} by default
	 */
	public boolean isForceReleaseEnabled() {
		return this.forceReleaseEnabled;
	}

	/**
	 * Sets whether the endpoint may force-release locks.
	 * @param forceReleaseEnabled {@code true} to allow it
	 */
	public void setForceReleaseEnabled(boolean forceReleaseEnabled) {
		this.forceReleaseEnabled = forceReleaseEnabled;
	}

}
