package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.core.DistributedLockException;

/**
 * A {@code distributed-lock.*} property bound to a value the library cannot use, such as a lease too short to
 * renew or a negative acquire timeout. Thrown by {@link DistributedLockProperties} while it is bound, or by the
 * auto-configuration for a value the application's Redis client cannot serve (replica sync with Jedis), so that
 * Spring Boot's failure analysis reports the property, its value (and, when bound, where it was set), and the
 * fix. Immutable.
 */
public class InvalidLockPropertyException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	/** The property at fault, such as {@code distributed-lock.lease}. */
	private final String property;

	/** The value it was bound to. */
	private final String value;

	/** How to fix it. */
	private final String action;

	/**
	 * Creates the exception.
	 * @param property the property's name, such as {@code distributed-lock.lease}
	 * @param value the value it was bound to
	 * @param reason why the value does not work, a sentence
	 * @param action how to fix it, a sentence
	 */
	InvalidLockPropertyException(String property, Object value, String reason, String action) {
		super(reason);
		this.property = property;
		this.value = String.valueOf(value);
		this.action = action;
	}

	/**
	 * Returns the property at fault.
	 * @return the property's name, such as {@code distributed-lock.lease}
	 */
	public String getProperty() {
		return this.property;
	}

	/**
	 * Returns the value the property was bound to.
	 * @return the bound value, such as {@code PT0.02S}
	 */
	public String getValue() {
		return this.value;
	}

	/**
	 * Returns how to fix the property.
	 * @return the action, a sentence
	 */
	public String getAction() {
		return this.action;
	}

}
