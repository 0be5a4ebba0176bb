package io.github.distributedlock.aop;

import java.time.Duration;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockCapabilities;
import io.github.distributedlock.core.LockCapability;
import org.jspecify.annotations.Nullable;

/**
 * The startup check that the lock store supports what each {@code @DistributedLock} method asks of it
 * ({@link io.github.distributedlock.core.LockClient#capabilities()}): read/write types, permits, an asynchronous
 * return type, a minimum hold. At run time the template refuses such a request before it reaches the store
 * ({@link UnsupportedOperationException}); this finds it before the first call, naming the store. Stateless.
 */
final class StoreCapabilityCheck {

	private StoreCapabilityCheck() {
	}

	/**
	 * Checks one operation.
	 * @param operation a valid operation
	 * @param capabilities what the store supports
	 * @throws InvalidLockAnnotationException naming the method, the attribute whose value the store cannot serve,
	 * and the store
	 */
	static void check(LockOperation operation, LockCapabilities capabilities) {
		if (operation.type() != LockType.REENTRANT) {
			require(operation, capabilities, LockCapability.READ_WRITE, "type", operation.type().name());
		}
		if (operation.permits() > 1) {
			require(operation, capabilities, LockCapability.SEMAPHORES, "permits", Integer.toString(operation.permits()));
		}
		ReturnKind kind = operation.returnKind();
		if (kind == ReturnKind.COMPLETION_STAGE || kind.isReactive()) {
			require(operation, capabilities, LockCapability.ASYNC, "return type",
					operation.method().getReturnType().getSimpleName());
		}
		Duration holdAtLeast = operation.holdAtLeast();
		if (holdAtLeast != null && !holdAtLeast.isZero()) {
			require(operation, capabilities, LockCapability.MINIMUM_HOLD, "holdAtLeast", holdAtLeast.toString());
		}
	}

	private static void require(LockOperation operation, LockCapabilities capabilities, LockCapability capability,
			String attribute, @Nullable String value) {
		if (!capabilities.supports(capability)) {
			throw new InvalidLockAnnotationException(operation.description(), attribute, String.valueOf(value),
					"the lock store '" + capabilities.store() + "' does not support " + capability.description(),
					"Use another store (distributed-lock.store), or lock this method without it.", null);
		}
	}

}
