package io.github.distributedlock.aop;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;

/**
 * How a {@code @DistributedLock} method gives its result, which decides how long its lock is held: until it
 * returns, until the stage it returns completes, or from the subscription to the end of the {@code Mono} or
 * {@code Flux} it returns.
 */
enum ReturnKind {

	/** A plain value (or nothing): held while the method runs. */
	PLAIN,

	/** A {@link CompletionStage} or {@link CompletableFuture}: held until the stage completes. */
	COMPLETION_STAGE,

	/** Reactor's {@code Mono}: held from its subscription until it ends. */
	MONO,

	/** Reactor's {@code Flux}: held from its subscription until it ends. */
	FLUX,

	/**
	 * Another type that completes later (a {@link Future}, a {@code Publisher} other than {@code Mono} and
	 * {@code Flux}, a {@code CompletionStage} class other than {@code CompletableFuture}): held only until the
	 * method returns.
	 */
	UNSUPPORTED_DEFERRED,

	/**
	 * A Kotlin {@code suspend fun} without kotlinx-coroutines-reactor on the class path: Spring AOP cannot run it as
	 * a {@code Mono}, so it cannot be locked until it ends; the startup check refuses it.
	 */
	UNSUPPORTED_SUSPENDING;

	private static final String MONO_CLASS = "reactor.core.publisher.Mono";

	private static final String FLUX_CLASS = "reactor.core.publisher.Flux";

	private static final String PUBLISHER_CLASS = "org.reactivestreams.Publisher";

	private static final String FLOW_CLASS = "kotlinx.coroutines.flow.Flow";

	/**
	 * Whether Spring AOP runs suspending functions as a {@code Mono} (or a {@code Flux} for a {@code Flow}), which
	 * it does with kotlinx-coroutines-reactor on the class path (the same check as Spring's AOP proxies).
	 */
	private static final boolean COROUTINES_REACTOR_PRESENT = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
			ReturnKind.class.getClassLoader());

	/**
	 * Tells the kind of a method: a Kotlin {@code suspend fun} is, to the interceptor, the {@code Mono} (or, when it
	 * returns a {@code Flow}, the {@code Flux}) that Spring AOP makes of it: the join point returns a publisher
	 * that runs the function when subscribed, and the proxy awaits it in the caller's coroutine (cancelling the
	 * subscription when the coroutine is cancelled). Any other method is of the kind of its return type.
	 * @param method the method, as declared
	 * @return its kind; {@link #UNSUPPORTED_SUSPENDING} for a suspending function without kotlinx-coroutines-reactor
	 */
	static ReturnKind of(Method method) {
		if (KotlinDetector.isSuspendingFunction(method)) {
			if (!COROUTINES_REACTOR_PRESENT) {
				return UNSUPPORTED_SUSPENDING;
			}
			return FLOW_CLASS.equals(new MethodParameter(method, -1).getParameterType().getName()) ? FLUX : MONO;
		}
		return of(method.getReturnType());
	}

	/**
	 * Tells the kind of a method's declared return type.
	 * @param returnType the declared return type
	 * @return its kind
	 */
	static ReturnKind of(Class<?> returnType) {
		if (returnType == CompletionStage.class || returnType == CompletableFuture.class) {
			return COMPLETION_STAGE;
		}
		if (returnType.getName().equals(MONO_CLASS)) {
			return MONO;
		}
		if (returnType.getName().equals(FLUX_CLASS)) {
			return FLUX;
		}
		if (CompletionStage.class.isAssignableFrom(returnType) || Future.class.isAssignableFrom(returnType) || ClassUtils.getAllInterfacesForClassAsSet(returnType)
			.stream()
			.anyMatch((type) -> type.getName().equals(PUBLISHER_CLASS)) || returnType.getName().equals(PUBLISHER_CLASS)) {
			return UNSUPPORTED_DEFERRED;
		}
		return PLAIN;
	}

	/**
	 * Tells whether the lock is held until the result completes, rather than until the method returns.
	 * @return {@code true} for stages, {@code Mono} and {@code Flux}
	 */
	boolean isDeferred() {
		return this == COMPLETION_STAGE || this == MONO || this == FLUX;
	}

	/**
	 * Tells whether the kind needs the reactive template.
	 * @return {@code true} for {@code Mono} and {@code Flux}
	 */
	boolean isReactive() {
		return this == MONO || this == FLUX;
	}

}
