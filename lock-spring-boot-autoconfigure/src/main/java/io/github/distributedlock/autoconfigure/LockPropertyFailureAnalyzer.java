package io.github.distributedlock.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Reports a startup that failed on a {@code distributed-lock.*} property the library cannot use: the
 * property, its value as written and where it was set, why it does not work, and the fix. Registered in
 * {@code META-INF/spring.factories}; ordered before Spring Boot's general binding analyzer, whose action
 * would not say which values work.
 */
final class LockPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockPropertyException>
		implements Ordered {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockPropertyException cause) {
		BindException binding = findCause(rootFailure, BindException.class);
		ConfigurationProperty property = (binding != null) ? binding.getProperty() : null;
		Object value = (property != null) ? property.getValue() : cause.getValue();
		StringBuilder description = new StringBuilder();
		description.append(String.format((cause instanceof UnknownLockPropertyException) ? "Unknown property %s:%n%n"
				: "Invalid value of %s:%n%n", cause.getProperty()));
		description.append(String.format("    Property: %s%n", cause.getProperty()));
		description.append(String.format("    Value: \"%s\"%n", value));
		String origin = (cause instanceof UnknownLockPropertyException unknown) ? unknown.getOrigin()
				: origin(property);
		if (origin != null) {
			description.append(String.format("    Origin: %s%n", origin));
		}
		description.append(String.format("    Reason: %s%n", cause.getMessage()));
		return new FailureAnalysis(description.toString(), cause.getAction(), cause);
	}

	private static @Nullable String origin(@Nullable ConfigurationProperty property) {
		return (property != null && property.getOrigin() != null) ? property.getOrigin().toString() : null;
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
