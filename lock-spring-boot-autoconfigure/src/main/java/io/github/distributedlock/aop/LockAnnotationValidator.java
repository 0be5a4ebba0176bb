package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.KotlinDetector;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Checks every {@code @DistributedLock} method of every bean when the context has created its singletons, so
 * that a mistake fails the startup (an {@link InvalidLockAnnotationException} naming the bean, the method, the
 * attribute and the value) instead of the first call hours later. The checks are those of the
 * {@link LockOperationSource}, which keeps what it resolved for the interceptor.
 * <p>
 * Beans are not created for this: a bean not created yet ({@code @Lazy}, other scopes) is checked by its
 * predicted type, a created one by the class behind its proxy. Infrastructure beans are skipped. A method that
 * returns Reactor's {@code Mono} or {@code Flux} needs a {@code ReactiveDistributedLockTemplate} bean (Reactor
 * and a reactive Redis connection, as Lettuce has; not Jedis): without one the startup fails. Logged at WARN: a
 * method whose return type completes later but is neither a {@link CompletionStage}/{@code CompletableFuture}
 * nor a {@code Mono}/{@code Flux} (its lock is held only until the method returns), and a private or static
 * method, which no proxy reaches, so it is never locked. A method that asks the lock store (the
 * {@link LockClient} bean) for what it does not support (read/write locks, semaphores, asynchronous
 * acquisitions, a minimum hold: {@link LockClient#capabilities()}) fails the startup, naming the store. One INFO
 * line lists the {@code @Scheduled} methods under a lock and what an instance that loses does; a WARN names one
 * that waits for its lock (an explicit {@code acquireTimeout}), as its losers then run the job again.
 * <p>
 * Runs once per context; its results are safe to read from any thread afterwards.
 */
public class LockAnnotationValidator implements SmartInitializingSingleton, BeanFactoryAware {

	private static final Log logger = LogFactory.getLog(LockAnnotationValidator.class);

	private final LockOperationSource operationSource;

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	/** The valid operations found, by method description. */
	private volatile Map<String, LockOperation> operations = Map.of();

	/**
	 * Creates a validator.
	 * @param operationSource resolves and checks the annotations (and caches them for the interceptor)
	 */
	public LockAnnotationValidator(LockOperationSource operationSource) {
		this.operationSource = Objects.requireNonNull(operationSource, "operationSource must not be null");
	}

	/**
	 * Sets the bean factory whose beans are checked.
	 * @param beanFactory the bean factory; only a {@link ConfigurableListableBeanFactory} can be walked
	 */
	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = (beanFactory instanceof ConfigurableListableBeanFactory listable) ? listable : null;
	}

	/**
	 * Checks every bean's {@code @DistributedLock} methods, and that methods sharing a lock name agree on its
	 * permit count.
	 * @throws InvalidLockAnnotationException for the first invalid annotation found, naming its bean
	 */
	@Override
	public void afterSingletonsInstantiated() {
		ConfigurableListableBeanFactory factory = this.beanFactory;
		if (factory == null) {
			return;
		}
		Map<String, LockOperation> found = new LinkedHashMap<>();
		for (Iterator<String> names = factory.getBeanNamesIterator(); names.hasNext();) {
			String beanName = names.next();
			Class<?> type = beanType(factory, beanName);
			if (type != null) {
				validate(beanName, type, found);
			}
		}
		PermitCountCheck.check(found.values());
		this.operations = Map.copyOf(found);
		ScheduledLockLog.logLocked(found.values());
	}

	/**
	 * Returns how many {@code @DistributedLock} methods were checked.
	 * @return the number of distinct methods, 0 before the check ran
	 */
	public int getValidatedMethodCount() {
		return this.operations.size();
	}

	/**
	 * Returns the lock names of the checked {@code @DistributedLock} methods, each with the lock types it is
	 * used with, so that per-lock meters can exist before any event.
	 * @return the names (the annotation's, or {@code SimpleClassName.methodName}) and their types; empty before
	 * the check ran
	 */
	public Map<String, Set<LockType>> getLockNames() {
		Map<String, Set<LockType>> names = new TreeMap<>();
		for (LockOperation operation : this.operations.values()) {
			names.computeIfAbsent(operation.name(), (name) -> EnumSet.noneOf(LockType.class)).add(operation.type());
		}
		return names;
	}

	/**
	 * Returns the lock names of the checked {@code @DistributedLock} methods that are semaphores
	 * ({@code permits > 1}), with their permit counts, so that their meters carry the type {@code semaphore} from
	 * the start.
	 * @return the names and permit counts (one per name: the startup refuses a name with two); empty before the
	 * check ran
	 */
	public Map<String, Integer> getSemaphorePermits() {
		Map<String, Integer> permits = new TreeMap<>();
		for (LockOperation operation : this.operations.values()) {
			if (operation.permits() > 1) {
				permits.put(operation.name(), operation.permits());
			}
		}
		return permits;
	}

	/**
	 * Returns the shortest lease set in an auto-renewed {@code @DistributedLock}: the watchdog renews it every
	 * third of it, so Redis commands must answer well within that.
	 * @return the shortest annotated lease, or {@code null} if no checked annotation sets one (or before the
	 * check ran)
	 */
	public @Nullable Duration getShortestRenewedLease() {
		return this.operations.values()
			.stream()
			.filter(LockOperation::autoRenew)
			.map(LockOperation::lease)
			.filter(Objects::nonNull)
			.min(Duration::compareTo)
			.orElse(null);
	}

	private void validate(String beanName, Class<?> type, Map<String, LockOperation> found) {
		if (!AnnotationUtils.isCandidateClass(type, DistributedLock.class)) {
			return;
		}
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
			if (!LockOperationSource.isAnnotated(method)) {
				continue;
			}
			if (Modifier.isPrivate(method.getModifiers()) || Modifier.isStatic(method.getModifiers())) {
				warnNeverLocked(beanName, type, method);
				continue;
			}
			LockOperation operation;
			try {
				operation = this.operationSource.getOperation(method, type);
			}
			catch (InvalidLockAnnotationException ex) {
				throw ex.forBean(beanName);
			}
			if (operation != null && found.putIfAbsent(operation.description(), operation) == null) {
				checkReturnKind(beanName, operation);
				checkStore(beanName, operation);
				ScheduledLockLog.warnIfWaits(beanName, operation);
				ScheduledLockLog.warnIfOwnPhase(beanName, operation);
			}
		}
	}

	private static void warnNeverLocked(String beanName, Class<?> type, Method method) {
		logger.warn("@DistributedLock on " + (Modifier.isPrivate(method.getModifiers()) ? "private" : "static")
				+ " method " + type.getSimpleName() + "." + method.getName() + " (bean '" + beanName
				+ "') is never locked: only calls through the bean's proxy are, and they cannot reach it");
	}

	private void checkReturnKind(String beanName, LockOperation operation) {
		ReturnKind kind = operation.returnKind();
		Class<?> returnType = operation.method().getReturnType();
		String returned = KotlinDetector.isSuspendingFunction(operation.method()) ? "suspend fun"
				: returnType.getSimpleName();
		if (kind == ReturnKind.UNSUPPORTED_DEFERRED) {
			logger.warn("@DistributedLock on " + operation.description() + " (bean '" + beanName + "') returns "
					+ returnType.getSimpleName() + ": the lock is held only until the method returns, not until "
					+ "the result completes (held until completion: CompletionStage, CompletableFuture, Mono, Flux)");
		}
		else if (kind == ReturnKind.UNSUPPORTED_SUSPENDING) {
			throw new InvalidLockAnnotationException(operation.description(), "return type", "suspend fun",
					"a suspend fun is locked until it returns (without blocking a thread) through Spring AOP's "
							+ "support for coroutines, which needs kotlinx-coroutines-reactor, and it is not on the class path",
					"Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor (its version comes from the Spring Boot BOM).",
					null)
				.forBean(beanName);
		}
		else if (kind.isReactive() && !hasReactiveTemplate()) {
			throw new InvalidLockAnnotationException(operation.description(), "return type", returned,
					"a " + returned + " is locked without blocking a thread, which needs a "
							+ "ReactiveDistributedLockTemplate bean, and there is none: it needs a reactive Redis "
							+ "connection (Lettuce); Jedis (spring.data.redis.client-type=jedis) has none",
					"Use Lettuce (the starter's default client), or return a plain value or a CompletionStage.", null)
				.forBean(beanName);
		}
	}

	/** Checks the operation against the store's capabilities, when the context has one store. */
	private void checkStore(String beanName, LockOperation operation) {
		ConfigurableListableBeanFactory factory = this.beanFactory;
		LockClient client = (factory != null) ? factory.getBeanProvider(LockClient.class).getIfUnique() : null;
		if (client != null) {
			try {
				StoreCapabilityCheck.check(operation, client.capabilities());
			}
			catch (InvalidLockAnnotationException ex) {
				throw ex.forBean(beanName);
			}
		}
	}

	private boolean hasReactiveTemplate() {
		ConfigurableListableBeanFactory factory = this.beanFactory;
		return factory != null && factory.getBeanNamesForType(ReactiveDistributedLockTemplate.class, true, false).length > 0;
	}

	/**
	 * The class whose methods the proxy of a bean runs, found without creating the bean.
	 */
	private static @Nullable Class<?> beanType(ConfigurableListableBeanFactory factory, String beanName) {
		if (factory.containsBeanDefinition(beanName)) {
			BeanDefinition definition = factory.getBeanDefinition(beanName);
			if (definition.isAbstract() || definition.getRole() == BeanDefinition.ROLE_INFRASTRUCTURE) {
				return null;
			}
		}
		Class<?> type;
		try {
			Object singleton = factory.containsSingleton(beanName) ? factory.getSingleton(beanName) : null;
			type = (singleton != null) ? AopProxyUtils.ultimateTargetClass(singleton)
					: factory.getType(beanName, false);
		}
		catch (BeansException ex) {
			logger.trace("Not checking @DistributedLock methods of bean '" + beanName + "': " + ex.getMessage());
			return null;
		}
		return (type == null || Proxy.isProxyClass(type)) ? null : ClassUtils.getUserClass(type);
	}

}
