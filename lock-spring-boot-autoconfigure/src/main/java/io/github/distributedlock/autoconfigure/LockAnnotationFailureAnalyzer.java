package io.github.distributedlock.autoconfigure;

import io.github.distributedlock.aop.InvalidLockAnnotationException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Reports a startup that failed on an invalid {@code @DistributedLock}: the bean, the method, the attribute,
 * its value and why it does not work, and the fix. Registered in {@code META-INF/spring.factories}; ordered
 * before Spring Boot's own analyzers, which would report the surrounding bean creation failure instead.
 */
final class LockAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockAnnotationException>
		implements Ordered {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockAnnotationException cause) {
		String bean = cause.getBeanName();
		String where = cause.getMethod() + ((bean != null) ? " of bean '" + bean + "'" : "");
		String description = String.format("The @DistributedLock annotation on %s cannot work:%n%n"
				+ "    Attribute: %s%n    Value: \"%s\"%n    Reason: %s%n", where, cause.getAttribute(),
				cause.getValue(), cause.getReason());
		String action = String.format("Change %s of @DistributedLock on %s. %s", cause.getAttribute(),
				cause.getMethod(), cause.getAction());
		return new FailureAnalysis(description, action, cause);
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
