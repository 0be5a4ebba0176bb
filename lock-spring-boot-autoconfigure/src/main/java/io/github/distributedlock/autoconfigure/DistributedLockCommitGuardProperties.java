package io.github.distributedlock.autoconfigure;

import java.time.Duration;
import java.util.Objects;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Properties of the commit guard ({@code distributed-lock.commit-guard.*}): a Spring transaction that commits
 * while its thread holds a distributed lock is rolled back if that lock is lost or its confirmed lease ends
 * within the margin.
 */
@ConfigurationProperties("distributed-lock.commit-guard")
public class DistributedLockCommitGuardProperties {

	/**
	 * Whether a transaction that commits under a distributed lock checks that lock first, and rolls back with
	 * LockLostException if it is lost or its confirmed lease ends within the margin.
	 */
	private boolean enabled = true;

	/**
	 * How long a lock's lease must still be confirmed for when a transaction under it commits: the longest a
	 * commit may take, so that it ends while the lock holds. The default, 1s, is far more than a commit takes
	 * on a healthy database and far less than what a healthy lock has left: its renewals keep at least two
	 * thirds of the lease confirmed (20s of the default 30s lease), so only a lock whose renewals have stopped
	 * comes within it. Keep it under half the shortest lease of a lock that commits transactions.
	 */
	private Duration margin = Duration.ofSeconds(1);

	/**
	 * Creates the properties with their defaults; Spring Boot binds them.
	 */
	public DistributedLockCommitGuardProperties() {
	}

	/**
	 * Returns whether the commit guard is on.
	 * @return {@code true} by default
	 */
	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Sets whether the commit guard is on.
	 * @param enabled {@code false} lets transactions commit under a lost lock
	 */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * Returns how long a lock's lease must still be confirmed for at a commit.
	 * @return the margin, 1 second by default
	 */
	public Duration getMargin() {
		return this.margin;
	}

	/**
	 * Sets how long a lock's lease must still be confirmed for at a commit.
	 * @param margin not negative
	 * @throws InvalidLockPropertyException if the margin is negative; the message names the property
	 */
	public void setMargin(Duration margin) {
		Objects.requireNonNull(margin, "margin must not be null");
		if (margin.isNegative()) {
			throw new InvalidLockPropertyException("distributed-lock.commit-guard.margin", margin,
					"the commit guard's margin must not be negative", "Set it to 0 or a positive duration such as 1s.");
		}
		this.margin = margin;
	}

}
