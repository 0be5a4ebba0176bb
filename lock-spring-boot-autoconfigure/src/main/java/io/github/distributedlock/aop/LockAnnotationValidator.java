package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

import io.github.distributedlock.annotation.DistributedLock;
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
 * predicted type, a created one by the class behind its proxy. Infrastructure beans are skipped. Logged at
 * WARN: a method whose return type completes later ({@link CompletionStage}, Reactor's {@code Mono} and
 * {@code Flux}), as its lock is held only until the method returns, not until the result completes; and a
 * private or static method, which no proxy reaches, so it is never locked.
 * <p>
 * Runs once per context; its results are safe to read from any thread afterwards.
 */
public class LockAnnotationValidator implements SmartInitializingSingleton, BeanFactoryAware {

	private static final Log logger = LogFactory.getLog(LockAnnotationValidator.class);

	private static final String[] DEFERRED_TYPE_NAMES = { "reactor.core.publisher.Mono",
			"reactor.core.publisher.Flux" };

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
	 * Checks every bean's {@code @DistributedLock} methods.
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
		this.operations = Map.copyOf(found);
	}

	/**
	 * Returns how many {@code @DistributedLock} methods were checked.
	 * @return the number of distinct methods, 0 before the check ran
	 */
	public int getValidatedMethodCount() {
		return this.operations.size();
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
				warnIfCompletedLater(beanName, operation);
			}
		}
	}

	private static void warnNeverLocked(String beanName, Class<?> type, Method method) {
		logger.warn("@DistributedLock on " + (Modifier.isPrivate(method.getModifiers()) ? "private" : "static")
				+ " method " + type.getSimpleName() + "." + method.getName() + " (bean '" + beanName
				+ "') is never locked: only calls through the bean's proxy are, and they cannot reach it");
	}

	private static void warnIfCompletedLater(String beanName, LockOperation operation) {
		Class<?> returnType = operation.method().getReturnType();
		if (CompletionStage.class.isAssignableFrom(returnType) || isDeferredByName(returnType)) {
			logger.warn("@DistributedLock on " + operation.description() + " (bean '" + beanName + "') returns "
					+ returnType.getSimpleName() + ": the lock is held only until the method returns, not until "
					+ "the result completes (asynchronous results are not supported yet)");
		}
	}

	private static boolean isDeferredByName(Class<?> type) {
		for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
			for (String name : DEFERRED_TYPE_NAMES) {
				if (name.equals(candidate.getName())) {
					return true;
				}
			}
		}
		return false;
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
