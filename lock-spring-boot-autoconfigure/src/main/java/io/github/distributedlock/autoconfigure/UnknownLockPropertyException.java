package io.github.distributedlock.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * A key under {@code distributed-lock.} that is no property of the library, such as the misspelled
 * {@code distributed-lock.leese}: set, it would be ignored and the default would apply. Thrown at startup, before
 * any bean is created, so that Spring Boot's failure analysis reports the key, where it was set and the closest
 * valid key. Immutable.
 */
public class UnknownLockPropertyException extends InvalidLockPropertyException {

	private static final long serialVersionUID = 1L;

	/** Where the key was set, such as a file and line. */
	private final @Nullable String origin;

	/**
	 * Creates the exception.
	 * @param property the unknown key
	 * @param value its value
	 * @param origin where it was set, or {@code null} if unknown
	 * @param reason why it is refused, a sentence
	 * @param action how to fix it, naming the closest valid key
	 */
	UnknownLockPropertyException(String property, Object value, @Nullable String origin, String reason,
			String action) {
		super(property, value, reason, action);
		this.origin = origin;
	}

	/**
	 * Returns where the key was set.
	 * @return a description of the origin, such as {@code class path resource [application.yml] - 3:3}, or
	 * {@code null} if unknown
	 */
	public @Nullable String getOrigin() {
		return this.origin;
	}

}
