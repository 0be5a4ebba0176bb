package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.annotation.OnLockLoss;
import io.github.distributedlock.core.LockDefinition;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Finds the {@code @DistributedLock} of a method and checks it: resolves {@code ${...}} placeholders, parses
 * and range-checks the durations, parses the key expressions, and refuses {@code onFailure = SKIP} on a
 * method returning a primitive. On a {@code @Scheduled} method, unset {@code acquireTimeout} and
 * {@code onFailure} become {@code "0"} and {@code SKIP} (see {@code ScheduledLock}). The one place these rules
 * live: the {@link DistributedLockInterceptor} asks
 * it on each call, the {@link LockAnnotationValidator} at startup. A valid result is cached per method and
 * target class, so each is resolved once; an invalid one is not cached, so every call reports it.
 * <p>
 * Thread-safe.
 */
public class LockOperationSource implements BeanFactoryAware {

	private final LockKeyEvaluator evaluator = new LockKeyEvaluator();

	/** Resolved operations; a method without the annotation maps to {@link Optional#empty()}. */
	private final Map<MethodClassKey, Optional<LockOperation>> operations = new ConcurrentHashMap<>(64);

	private volatile @Nullable BeanFactory beanFactory;

	/**
	 * Creates a source with an empty cache and no bean factory yet (see {@link #setBeanFactory(BeanFactory)}).
	 */
	public LockOperationSource() {
	}

	/**
	 * Sets the bean factory whose embedded value resolver resolves {@code ${...}} placeholders in the name and
	 * the durations. Without one, placeholders stay as written (and then do not parse as durations).
	 * @param beanFactory the bean factory
	 */
	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Returns whether a method carries {@code @DistributedLock}: directly, on a method it overrides or
	 * implements, or through a meta-annotation. Does not check the annotation.
	 * @param method the method
	 * @return {@code true} if it is to be locked
	 */
	public static boolean isAnnotated(Method method) {
		return AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class);
	}

	/**
	 * Returns the resolved {@code @DistributedLock} of a method, from the cache after the first call.
	 * @param method the called method
	 * @param targetClass the class of the target bean
	 * @return the operation, or {@code null} if the method has no {@code @DistributedLock}
	 * @throws InvalidLockAnnotationException if the annotation is invalid
	 */
	@Nullable LockOperation getOperation(Method method, Class<?> targetClass) {
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		Optional<LockOperation> cached = this.operations.get(cacheKey);
		if (cached == null) {
			cached = Optional.ofNullable(buildOperation(method, targetClass));
			this.operations.put(cacheKey, cached);
		}
		return cached.orElse(null);
	}

	private @Nullable LockOperation buildOperation(Method method, Class<?> targetClass) {
		Method specificMethod = AopUtils.getMostSpecificMethod(method, targetClass);
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specificMethod, DistributedLock.class);
		if (annotation == null && specificMethod != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		}
		if (annotation == null) {
			return null;
		}
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		String description = describe(userClass, specificMethod);
		String name = resolve(annotation.name(), "name", description).trim();
		if (name.isEmpty()) {
			name = userClass.getSimpleName() + "." + specificMethod.getName();
		}
		AnnotatedElementKey methodKey = new AnnotatedElementKey(specificMethod, targetClass);
		List<String> keySources = List.of(annotation.key());
		List<Expression> keys = new ArrayList<>(keySources.size());
		for (String source : keySources) {
			Expression key = parseKey(source, methodKey, description);
			KeyParameterCheck.check(key, source, specificMethod, description);
			keys.add(key);
		}
		Duration lease = parseDuration(annotation.lease(), "lease", description);
		if (lease != null) {
			try {
				LockDefinition.checkLease(lease, annotation.autoRenew(), "lease");
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidLockAnnotationException(description, "lease", annotation.lease(), ex.getMessage(),
						"Use a positive lease such as \"30s\"; with autoRenew at least "
								+ LockDefinition.MIN_RENEWABLE_LEASE.toMillis()
								+ "ms, or set autoRenew = false for a shorter, hard lease.",
						ex);
			}
		}
		Duration acquireTimeout = parseDuration(annotation.acquireTimeout(), "acquireTimeout", description);
		checkNotNegative(acquireTimeout, "acquireTimeout", annotation.acquireTimeout(), description,
				"Use \"0\" to try once, a positive duration such as \"5s\" to wait, or leave acquireTimeout out "
						+ "for distributed-lock.acquire-timeout.");
		Duration holdAtLeast = parseDuration(annotation.holdAtLeast(), "holdAtLeast", description);
		ScheduledLock scheduled = ScheduledLock.of(specificMethod, annotation);
		OnLockFailure onFailure = annotation.onFailure();
		if (scheduled != null) {
			acquireTimeout = scheduled.acquireTimeout(acquireTimeout);
			onFailure = scheduled.onFailure(onFailure);
		}
		checkNotNegative(holdAtLeast, "holdAtLeast", annotation.holdAtLeast(), description,
				"Use a positive duration such as \"30s\", or leave holdAtLeast out for no minimum hold.");
		try {
			LockDefinition.checkPermits(annotation.permits(), annotation.type(), "this method's lock");
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLockAnnotationException(description, "permits", Integer.toString(annotation.permits()),
					ex.getMessage(), (annotation.permits() < 1)
							? "Leave permits out for a lock, or give a count of 2 or more for a semaphore."
							: "Leave type out (REENTRANT), or leave permits out for a read/write lock.",
					ex);
		}
		Class<?> returnType = specificMethod.getReturnType();
		if (onFailure == OnLockFailure.SKIP && returnType.isPrimitive() && returnType != void.class) {
			throw new InvalidLockAnnotationException(description, "onFailure", "SKIP",
					"a skipped call returns null, which a method returning " + returnType.getName() + " cannot",
					"Return " + ClassUtils.resolvePrimitiveIfNecessary(returnType).getSimpleName()
							+ " or an Optional, or use onFailure = THROW.",
					null);
		}
		return new LockOperation(description, specificMethod, methodKey, name, keySources, List.copyOf(keys),
				annotation.type(), lease, acquireTimeout, annotation.autoRenew(), onFailure, holdAtLeast,
				ReturnKind.of(specificMethod), scheduled,
				(annotation.onLost() != OnLockLoss.NONE) ? annotation.onLost() : null, annotation.permits());
	}

	private Expression parseKey(String source, AnnotatedElementKey methodKey, String description) {
		if (!StringUtils.hasText(source)) {
			throw new InvalidLockAnnotationException(description, "key", source,
					"a key expression must not be blank",
					"Remove the blank entry, or leave key out to lock on the name alone.", null);
		}
		try {
			return this.evaluator.parse(source, methodKey);
		}
		catch (ParseException ex) {
			throw new InvalidLockAnnotationException(description, "key", source, ex.getMessage(),
					"Write a SpEL expression over the arguments, such as \"#order.id\" (needs -parameters), "
							+ "\"#p0\", \"#root.methodName\" or \"@bean.property\".",
					ex);
		}
	}

	private @Nullable Duration parseDuration(String value, String attribute, String description) {
		String resolved = resolve(value, attribute, description).trim();
		if (resolved.isEmpty()) {
			return null;
		}
		if (resolved.contains("${")) {
			throw unresolved(description, attribute, value, "it was left as written", null);
		}
		try {
			return DurationStyle.detectAndParse(resolved);
		}
		catch (RuntimeException ex) {
			throw new InvalidLockAnnotationException(description, attribute, value,
					(resolved.equals(value) ? "" : "resolved to '" + resolved + "', which is ") + "not a duration",
					"Use a duration such as \"500ms\", \"30s\" or \"PT1M\" (a bare number is milliseconds).", ex);
		}
	}

	private static void checkNotNegative(@Nullable Duration duration, String attribute, String value,
			String description, String action) {
		if (duration != null && duration.isNegative()) {
			throw new InvalidLockAnnotationException(description, attribute, value, "must not be negative", action,
					null);
		}
	}

	private String resolve(String value, String attribute, String description) {
		if (this.beanFactory instanceof ConfigurableBeanFactory configurable && value.contains("${")) {
			try {
				String resolved = configurable.resolveEmbeddedValue(value);
				return (resolved != null) ? resolved : value;
			}
			catch (IllegalArgumentException ex) {
				throw unresolved(description, attribute, value, ex.getMessage(), ex);
			}
		}
		return value;
	}

	private static InvalidLockAnnotationException unresolved(String description, String attribute, String value,
			@Nullable String why, @Nullable Throwable cause) {
		return new InvalidLockAnnotationException(description, attribute, value,
				"cannot resolve the placeholder: " + why,
				"Define the property, or give the placeholder a default, such as ${app.lease:30s}.", cause);
	}

	private static String describe(Class<?> userClass, Method method) {
		return userClass.getSimpleName() + "." + method.getName() + Arrays.stream(method.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", ", "(", ")"));
	}

}
