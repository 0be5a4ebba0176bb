package io.github.distributedlock.aop;

import io.github.distributedlock.core.DistributedLockException;
import org.jspecify.annotations.Nullable;

/**
 * A {@code @DistributedLock} annotation that cannot work: an attribute with a value the library cannot use,
 * such as a SpEL syntax error in {@code key}, a malformed or negative duration, or {@code onFailure = SKIP}
 * on a method that returns a primitive. Thrown at startup, naming the bean, by {@link LockAnnotationValidator};
 * and at the first call of the method by {@link DistributedLockInterceptor} for a bean that was not validated.
 * Spring Boot's failure analysis turns it into a report with the fix. Immutable.
 */
public class InvalidLockAnnotationException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	/** The annotated method, such as {@code OrderService.pay(Order)}. */
	private final String method;

	/** The attribute at fault. */
	private final String attribute;

	/** The attribute's value as written. */
	private final String value;

	/** Why the value does not work. */
	private final String reason;

	/** How to fix it. */
	private final String action;

	/** The bean whose method carries the annotation, if known. */
	private final @Nullable String beanName;

	/**
	 * Creates the exception.
	 * @param method the annotated method, such as {@code OrderService.pay(Order)}
	 * @param attribute the attribute at fault, such as {@code lease}
	 * @param value the attribute's value as written (one entry of {@code key})
	 * @param reason why the value does not work
	 * @param action how to fix it, a sentence
	 * @param cause the parser's exception, or {@code null}
	 */
	InvalidLockAnnotationException(String method, String attribute, String value, String reason, String action,
			@Nullable Throwable cause) {
		this(method, attribute, value, reason, action, cause, null);
	}

	private InvalidLockAnnotationException(String method, String attribute, String value, String reason,
			String action, @Nullable Throwable cause, @Nullable String beanName) {
		super(((beanName != null) ? "Bean '" + beanName + "': i" : "I") + "nvalid " + attribute + " '" + value
				+ "' in @DistributedLock on " + method + ": " + reason, cause);
		this.method = method;
		this.attribute = attribute;
		this.value = value;
		this.reason = reason;
		this.action = action;
		this.beanName = beanName;
	}

	/**
	 * Returns this exception with the name of the bean whose method carries the annotation.
	 * @param beanName the bean name
	 * @return a new exception, with this one's cause and stack trace
	 */
	InvalidLockAnnotationException forBean(String beanName) {
		InvalidLockAnnotationException named = new InvalidLockAnnotationException(this.method, this.attribute,
				this.value, this.reason, this.action, getCause(), beanName);
		named.setStackTrace(getStackTrace());
		return named;
	}

	/**
	 * Returns the annotated method.
	 * @return the method, as {@code SimpleClassName.method(ParameterTypes)}
	 */
	public String getMethod() {
		return this.method;
	}

	/**
	 * Returns the attribute at fault.
	 * @return the attribute's name, such as {@code key}, {@code lease} or {@code onFailure}
	 */
	public String getAttribute() {
		return this.attribute;
	}

	/**
	 * Returns the attribute's value.
	 * @return the value as written in the annotation (for {@code key}, the entry at fault)
	 */
	public String getValue() {
		return this.value;
	}

	/**
	 * Returns why the value does not work.
	 * @return the reason, a sentence fragment
	 */
	public String getReason() {
		return this.reason;
	}

	/**
	 * Returns how to fix the annotation.
	 * @return the action, a sentence
	 */
	public String getAction() {
		return this.action;
	}

	/**
	 * Returns the bean whose method carries the annotation.
	 * @return the bean name, or {@code null} when the mistake was found at a call rather than at startup
	 */
	public @Nullable String getBeanName() {
		return this.beanName;
	}

}
