package io.github.distributedlock.aop;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

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
	UNSUPPORTED_DEFERRED;

	private static final String MONO_CLASS = "reactor.core.publisher.Mono";

	private static final String FLUX_CLASS = "reactor.core.publisher.Flux";

	private static final String PUBLISHER_CLASS = "org.reactivestreams.Publisher";

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
