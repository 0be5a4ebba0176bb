package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Runs {@code @DistributedLock} methods under their lock: evaluates the key, acquires through the
 * {@link DistributedLockTemplate}, proceeds, and releases in a {@code finally}. The method's own exception
 * always propagates unchanged.
 * <p>
 * The annotation is looked up, its durations parsed and its key expressions parsed once per method and
 * target class; each call only evaluates the expressions. Bad input is reported as a
 * {@link DistributedLockException} naming the method and the expression or value, and the method does not
 * run: a SpEL syntax or evaluation error, a key that evaluates to {@code null} or blank, a malformed,
 * negative or too short duration, {@code onFailure = SKIP} on a method returning a primitive.
 * <p>
 * Thread-safe.
 */
public class DistributedLockInterceptor implements MethodInterceptor, BeanFactoryAware {

	private final Supplier<DistributedLockTemplate> template;

	private final LockKeyEvaluator evaluator = new LockKeyEvaluator();

	/** Resolved operations; a method without the annotation maps to {@link Optional#empty()}. */
	private final Map<MethodClassKey, Optional<LockOperation>> operations = new ConcurrentHashMap<>(64);

	private @Nullable BeanFactory beanFactory;

	private @Nullable BeanFactoryResolver beanResolver;

	/**
	 * Creates an interceptor on a template.
	 * @param template the template that acquires and releases
	 */
	public DistributedLockInterceptor(DistributedLockTemplate template) {
		Objects.requireNonNull(template, "template must not be null");
		this.template = () -> template;
	}

	/**
	 * Creates an interceptor that looks its template up on first use, so that advisors created early by the
	 * auto-proxy creator do not pull the Redis beans along.
	 * @param template supplies the template; called on each invocation, so it should be cheap
	 */
	public DistributedLockInterceptor(Supplier<DistributedLockTemplate> template) {
		this.template = Objects.requireNonNull(template, "template must not be null");
	}

	/**
	 * Sets the bean factory that {@code @bean} references in key expressions and {@code ${...}} placeholders
	 * in durations are resolved against.
	 * @param beanFactory the bean factory
	 */
	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.beanResolver = new BeanFactoryResolver(beanFactory);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		LockOperation operation = getOperation(method, targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		List<LockDefinition> definitions = definitions(operation, invocation.getArguments(), target, targetClass);
		DistributedLockTemplate lockTemplate = this.template.get();
		if (operation.onFailure() == OnLockFailure.SKIP) {
			return lockTemplate.tryExecuteAll(definitions, invocation::proceed, operation::skippedResult);
		}
		return lockTemplate.executeAll(definitions, invocation::proceed);
	}

	/**
	 * Returns the resolved {@code @DistributedLock} of a method, from the cache after the first call.
	 * @param method the called method
	 * @param targetClass the class of the target bean
	 * @return the operation, or {@code null} if the method has no {@code @DistributedLock}
	 * @throws DistributedLockException if the annotation is invalid (not cached: every call reports it)
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
		String name = resolve(annotation.name()).trim();
		if (name.isEmpty()) {
			name = userClass.getSimpleName() + "." + specificMethod.getName();
		}
		AnnotatedElementKey methodKey = new AnnotatedElementKey(specificMethod, targetClass);
		List<String> keySources = List.of(annotation.key());
		List<Expression> keys = new ArrayList<>(keySources.size());
		for (String source : keySources) {
			if (!StringUtils.hasText(source)) {
				throw new DistributedLockException("Empty key expression in @DistributedLock on " + description
						+ ": leave key() out to lock on the name alone");
			}
			try {
				keys.add(this.evaluator.parse(source, methodKey));
			}
			catch (ParseException ex) {
				throw new DistributedLockException("Invalid key expression '" + source + "' in @DistributedLock on "
						+ description + ": " + ex.getMessage(), ex);
			}
		}
		Duration lease = parseDuration(annotation.lease(), "lease", description);
		Duration acquireTimeout = parseDuration(annotation.acquireTimeout(), "acquireTimeout", description);
		if (lease != null) {
			try {
				LockDefinition.checkLease(lease, annotation.autoRenew(), "lease '" + annotation.lease()
						+ "' in @DistributedLock on " + description);
			}
			catch (IllegalArgumentException ex) {
				throw new DistributedLockException(ex.getMessage(), ex);
			}
		}
		if (acquireTimeout != null && acquireTimeout.isNegative()) {
			throw new DistributedLockException("The acquireTimeout '" + annotation.acquireTimeout()
					+ "' in @DistributedLock on " + description + " must not be negative");
		}
		Duration holdAtLeast = parseDuration(annotation.holdAtLeast(), "holdAtLeast", description);
		if (holdAtLeast != null && holdAtLeast.isNegative()) {
			throw new DistributedLockException("The holdAtLeast '" + annotation.holdAtLeast()
					+ "' in @DistributedLock on " + description + " must not be negative");
		}
		if (annotation.onFailure() == OnLockFailure.SKIP && specificMethod.getReturnType().isPrimitive()
				&& specificMethod.getReturnType() != void.class) {
			throw new DistributedLockException("@DistributedLock(onFailure = SKIP) on " + description
					+ " cannot skip a method that returns " + specificMethod.getReturnType().getName()
					+ ": return a wrapper type or Optional, or use THROW");
		}
		return new LockOperation(description, specificMethod, methodKey, name, keySources, List.copyOf(keys),
				annotation.type(), lease, acquireTimeout, annotation.autoRenew(), annotation.onFailure(), holdAtLeast);
	}

	private List<LockDefinition> definitions(LockOperation operation, Object[] args, @Nullable Object target,
			Class<?> targetClass) {
		if (operation.keys().isEmpty()) {
			return List.of(definition(operation, operation.name()));
		}
		EvaluationContext context = this.evaluator.createContext(
				new LockExpressionRootObject(operation.method(), args, target, targetClass), operation.method(), args,
				this.beanResolver);
		List<LockDefinition> definitions = new ArrayList<>(operation.keys().size());
		for (int i = 0; i < operation.keys().size(); i++) {
			String source = operation.keySources().get(i);
			Object value;
			try {
				value = operation.keys().get(i).getValue(context);
			}
			catch (EvaluationException ex) {
				throw new DistributedLockException("Key expression '" + source + "' in @DistributedLock on "
						+ operation.description() + " failed: " + ex.getMessage(), ex);
			}
			if (value == null) {
				throw new DistributedLockException("Key expression '" + source + "' in @DistributedLock on "
						+ operation.description() + " evaluated to null; a lock key needs a value");
			}
			String keyValue = value.toString();
			if (keyValue.isBlank()) {
				throw new DistributedLockException("Key expression '" + source + "' in @DistributedLock on "
						+ operation.description() + " evaluated to an empty string; a lock key needs a value");
			}
			definitions.add(definition(operation, operation.name() + ":" + keyValue));
		}
		return definitions;
	}

	private static LockDefinition definition(LockOperation operation, String key) {
		return new LockDefinition(key, operation.type(), operation.lease(), operation.acquireTimeout(),
				operation.autoRenew(), operation.holdAtLeast());
	}

	private @Nullable Duration parseDuration(String value, String attribute, String description) {
		String resolved = resolve(value).trim();
		if (resolved.isEmpty()) {
			return null;
		}
		try {
			return DurationStyle.detectAndParse(resolved);
		}
		catch (RuntimeException ex) {
			throw new DistributedLockException("Malformed " + attribute + " '" + value + "'"
					+ (resolved.equals(value) ? "" : " (resolved to '" + resolved + "')") + " in @DistributedLock on "
					+ description + ": use a duration such as \"500ms\", \"30s\" or \"PT1M\"", ex);
		}
	}

	private String resolve(String value) {
		if (this.beanFactory instanceof ConfigurableBeanFactory configurable && value.contains("${")) {
			try {
				String resolved = configurable.resolveEmbeddedValue(value);
				return (resolved != null) ? resolved : value;
			}
			catch (IllegalArgumentException ex) {
				throw new DistributedLockException("Cannot resolve placeholder in '" + value + "': " + ex.getMessage(),
						ex);
			}
		}
		return value;
	}

	private static String describe(Class<?> userClass, Method method) {
		return userClass.getSimpleName() + "." + method.getName() + Arrays.stream(method.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", ", "(", ")"));
	}

}
