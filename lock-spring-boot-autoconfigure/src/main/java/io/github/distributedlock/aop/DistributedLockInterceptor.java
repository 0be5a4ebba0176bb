package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockCallback;
import io.github.distributedlock.core.LockDefinition;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;

/**
 * Runs {@code @DistributedLock} methods under their lock: evaluates the key, acquires through the
 * {@link DistributedLockTemplate}, proceeds, and releases in a {@code finally}. The method's own exception
 * always propagates unchanged. How long the lock is held follows the method's return type:
 * <ul>
 * <li>a plain value: while the method runs;</li>
 * <li>{@code CompletionStage} or {@code CompletableFuture}: from before the method runs until the stage it
 * returns completes ({@link DistributedLockTemplate#executeAllAsync}); each call is an owner of its own, a
 * failure to acquire is a failed stage ({@code THROW}) or a stage completed with {@code null} ({@code SKIP});</li>
 * <li>Reactor's {@code Mono} or {@code Flux}: from the subscription, without blocking a thread, until it ends
 * ({@code ReactiveDistributedLockTemplate}); the method runs at the subscription, once the lock is held; not
 * acquired is an error ({@code THROW}) or empty ({@code SKIP}).</li>
 * </ul>
 * For those that complete later, a key expression that fails is a failed result too, not an exception.
 * <p>
 * The annotation is resolved and checked once per method and target class by a {@link LockOperationSource}
 * (usually already at startup, by the {@link LockAnnotationValidator}); each call only evaluates the key
 * expressions. Bad input is reported as a {@link DistributedLockException} naming the method and the expression
 * or value, and the method does not run: an {@link InvalidLockAnnotationException} for an annotation that
 * cannot work (see {@link LockOperationSource}), and a plain {@link DistributedLockException} for a key
 * expression that fails or evaluates to {@code null} or blank. A call skipped by {@code onFailure = SKIP} is
 * logged at DEBUG, with the method and the keys.
 * <p>
 * <b>While the application context closes</b> (from its {@link ContextClosedEvent} on), a {@code SKIP} method
 * whose lock cannot be acquired for any reason, such as a lock client already stopped, is skipped as well,
 * with one INFO line naming the method, the keys and the reason, instead of throwing: a {@code @Scheduled} job
 * that the scheduler still fires after the lock client stopped (the scheduler keeps firing until it is
 * destroyed, after every lifecycle phase, when {@code spring.task.scheduling.shutdown.await-termination} is
 * on) then ends quietly rather than as the scheduler's ERROR. A failure of the method itself still
 * propagates, and a {@code THROW} method, or one whose result completes later, fails as at any other time.
 * <p>
 * Thread-safe.
 */
public class DistributedLockInterceptor implements MethodInterceptor, BeanFactoryAware, ApplicationContextAware,
		ApplicationListener<ContextClosedEvent> {

	private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

	private final Supplier<DistributedLockTemplate> template;

	private final LockOperationSource operationSource;

	private final LockKeyEvaluator evaluator = new LockKeyEvaluator();

	private @Nullable BeanResolver beanResolver;

	/** The context whose closing {@link #onApplicationEvent} watches, once known. */
	private @Nullable ApplicationContext applicationContext;

	/** Set when the application context starts to close. */
	private volatile boolean closing;

	/** Supplies the {@code ReactiveDistributedLockTemplate}, or {@code null} where there is none. */
	private Supplier<?> reactiveTemplate = () -> null;

	/**
	 * Creates an interceptor on a template, with an operation source of its own.
	 * @param template the template that acquires and releases
	 */
	public DistributedLockInterceptor(DistributedLockTemplate template) {
		Objects.requireNonNull(template, "template must not be null");
		this.template = () -> template;
		this.operationSource = new LockOperationSource();
	}

	/**
	 * Creates an interceptor that looks its template up on first use, so that advisors created early by the
	 * auto-proxy creator do not pull the Redis beans along; with an operation source of its own.
	 * @param template supplies the template; called on each invocation, so it should be cheap
	 */
	public DistributedLockInterceptor(Supplier<DistributedLockTemplate> template) {
		this(template, new LockOperationSource());
	}

	/**
	 * Creates an interceptor that looks its template up on first use and resolves annotations with a shared
	 * operation source (the one the startup validator filled).
	 * @param template supplies the template; called on each invocation, so it should be cheap
	 * @param operationSource resolves and caches the methods' annotations
	 */
	public DistributedLockInterceptor(Supplier<DistributedLockTemplate> template,
			LockOperationSource operationSource) {
		this.template = Objects.requireNonNull(template, "template must not be null");
		this.operationSource = Objects.requireNonNull(operationSource, "operationSource must not be null");
	}

	/**
	 * Sets the bean factory that {@code @bean} references in key expressions and {@code ${...}} placeholders
	 * in durations are resolved against (the latter by passing it on to the operation source).
	 * @param beanFactory the bean factory
	 */
	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.operationSource.setBeanFactory(beanFactory);
		this.beanResolver = new BeanFactoryResolver(beanFactory);
	}

	/**
	 * Sets the application context whose closing turns a {@code SKIP} method's failure to acquire into a skip.
	 * @param applicationContext the context this interceptor is a bean of
	 */
	@Override
	public void setApplicationContext(ApplicationContext applicationContext) {
		this.applicationContext = applicationContext;
	}

	/**
	 * Notes that this interceptor's application context started to close (a child context's closing, which
	 * reaches its parent's listeners too, is ignored).
	 * @param event the event
	 */
	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		if (event.getApplicationContext() == this.applicationContext) {
			this.closing = true;
		}
	}

	/**
	 * Sets where the template for methods returning {@code Mono} or {@code Flux} comes from; without one they
	 * fail (and the {@link LockAnnotationValidator} fails the startup).
	 * @param reactiveTemplate supplies the {@code ReactiveDistributedLockTemplate}, or {@code null} if there is
	 * none; typed loosely so that this class does not need Reactor
	 */
	public void setReactiveTemplate(Supplier<?> reactiveTemplate) {
		this.reactiveTemplate = Objects.requireNonNull(reactiveTemplate, "reactiveTemplate must not be null");
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
		if (operation.returnKind().isDeferred()) {
			return invokeDeferred(invocation, operation, target, targetClass);
		}
		List<LockDefinition> definitions = definitions(operation, invocation.getArguments(), target, targetClass);
		DistributedLockTemplate lockTemplate = this.template.get();
		if (operation.onFailure() == OnLockFailure.SKIP) {
			return trySkippable(invocation, operation, definitions, lockTemplate);
		}
		return lockTemplate.executeAll(definitions, invocation::proceed);
	}

	/** A {@code SKIP} method: skipped when not acquired in time, and when not acquired at all while closing. */
	private @Nullable Object trySkippable(MethodInvocation invocation, LockOperation operation,
			List<LockDefinition> definitions, DistributedLockTemplate lockTemplate) throws Throwable {
		boolean[] bodyStarted = new boolean[1];
		try {
			return lockTemplate.tryExecuteAll(definitions, () -> {
				bodyStarted[0] = true;
				return invocation.proceed();
			}, () -> skipped(operation, definitions, lockTemplate));
		}
		catch (DistributedLockException ex) {
			if (bodyStarted[0] || !this.closing) {
				throw ex;
			}
			logger.info("Skipped " + operation.description() + " (onFailure = SKIP): the application is shutting "
					+ "down and lock " + keys(definitions) + " could not be acquired: " + ex.getMessage());
			return operation.skippedResult();
		}
	}

	/** A method whose result completes later: the lock is held until it does. */
	@SuppressWarnings("unchecked")
	private Object invokeDeferred(MethodInvocation invocation, LockOperation operation, @Nullable Object target,
			Class<?> targetClass) throws Throwable {
		List<LockDefinition> definitions;
		try {
			definitions = definitions(operation, invocation.getArguments(), target, targetClass);
		}
		catch (RuntimeException ex) {
			return operation.returnKind().isReactive() ? ReactiveLockInvoker.failed(operation, ex)
					: CompletableFuture.failedFuture(ex);
		}
		DistributedLockTemplate lockTemplate = this.template.get();
		if (operation.returnKind().isReactive()) {
			return ReactiveLockInvoker.invoke(this.reactiveTemplate.get(), operation, definitions, invocation,
					() -> skipped(operation, definitions, lockTemplate));
		}
		LockCallback<CompletionStage<Object>, Throwable> action = () -> (CompletionStage<Object>) invocation.proceed();
		if (operation.onFailure() == OnLockFailure.SKIP) {
			return lockTemplate.tryExecuteAllAsync(definitions, action, () -> {
				skipped(operation, definitions, lockTemplate);
				return null;
			});
		}
		return lockTemplate.executeAllAsync(definitions, action);
	}

	private static @Nullable Object skipped(LockOperation operation, List<LockDefinition> definitions,
			DistributedLockTemplate lockTemplate) {
		if (logger.isDebugEnabled()) {
			Duration timeout = (operation.acquireTimeout() != null) ? operation.acquireTimeout()
					: lockTemplate.getDefaultAcquireTimeout();
			logger.debug("Skipped " + operation.description() + " (onFailure = SKIP): lock " + keys(definitions)
					+ " not acquired within " + timeout.toMillis() + "ms");
		}
		return operation.skippedResult();
	}

	private static String keys(List<LockDefinition> definitions) {
		return definitions.stream()
			.map((definition) -> "'" + definition.key() + "'")
			.collect(Collectors.joining(", "));
	}

	/**
	 * Returns the resolved {@code @DistributedLock} of a method, from the cache after the first call.
	 * @param method the called method
	 * @param targetClass the class of the target bean
	 * @return the operation, or {@code null} if the method has no {@code @DistributedLock}
	 * @throws InvalidLockAnnotationException if the annotation is invalid (not cached: every call reports it)
	 */
	@Nullable LockOperation getOperation(Method method, Class<?> targetClass) {
		return this.operationSource.getOperation(method, targetClass);
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
				operation.autoRenew(), operation.holdAtLeast(), operation.onLost(), operation.permits());
	}

}
