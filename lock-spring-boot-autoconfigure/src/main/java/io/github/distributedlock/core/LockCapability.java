package io.github.distributedlock.core;

import java.util.EnumSet;
import java.util.Set;

import io.github.distributedlock.annotation.LockType;

/**
 * What a store may or may not support beyond an exclusive reentrant lock acquired by the calling thread: a
 * {@link LockClient} declares its own in {@link LockClient#capabilities()}, and the templates refuse a request
 * that needs one it lacks before the request reaches it (startup validation does so for
 * {@code @DistributedLock} methods). A lock option that not every store has adds a constant here.
 */
public enum LockCapability {

	/** Read/write locks: {@link LockType#READ} and {@link LockType#WRITE}. */
	READ_WRITE("read/write locks (type READ or WRITE)"),

	/** Semaphores: more than one permit ({@link LockRequest#permits()}). */
	SEMAPHORES("semaphores (permits > 1)"),

	/**
	 * Acquisitions for owners that are not threads, without blocking the caller:
	 * {@link LockClient#newAsyncOwner()} and {@link LockClient#acquireAsync(LockRequest)}, which methods returning a
	 * {@code CompletionStage}, {@code Mono}, {@code Flux} or a Kotlin {@code suspend fun} use.
	 */
	ASYNC("asynchronous acquisitions (CompletionStage, Mono, Flux, suspend fun)"),

	/** A minimum hold ({@link LockRequest#holdAtLeast()}). */
	MINIMUM_HOLD("a minimum hold (holdAtLeast)");

	private final String description;

	LockCapability(String description) {
		this.description = description;
	}

	/**
	 * Describes the capability for messages.
	 * @return such as {@code "semaphores (permits > 1)"}
	 */
	public String description() {
		return this.description;
	}

	/**
	 * Returns what a request needs of its store.
	 * @param request the request
	 * @return the capabilities it needs; empty for an exclusive lock without options acquired by its thread
	 */
	public static Set<LockCapability> requiredBy(LockRequest request) {
		Set<LockCapability> required = EnumSet.noneOf(LockCapability.class);
		if (request.type() != LockType.REENTRANT) {
			required.add(READ_WRITE);
		}
		if (request.permits() > 1) {
			required.add(SEMAPHORES);
		}
		if (request.isAsync()) {
			required.add(ASYNC);
		}
		if (!request.holdAtLeast().isZero()) {
			required.add(MINIMUM_HOLD);
		}
		return required;
	}

}
