package io.github.distributedlock.aop;

import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The startup check that one lock name is one kind: {@code @DistributedLock} methods that share a {@code name}
 * share its Redis keys ({@code <name>:<key value>}), so they must agree on the permit count, and a semaphore's
 * name ({@code permits > 1}) must not also be a read/write lock's. At run time Redis refuses such a mix on a key
 * both use ({@code IllegalStateException}); this finds it before the first call. Stateless.
 */
final class PermitCountCheck {

	private PermitCountCheck() {
	}

	/**
	 * Checks the operations found.
	 * @param operations the valid operations of the application's beans
	 * @throws InvalidLockAnnotationException naming the second method of a name whose permit count or kind
	 * differs from the first's, and both counts
	 */
	static void check(Collection<LockOperation> operations) {
		Map<String, LockOperation> first = new HashMap<>();
		for (LockOperation operation : operations) {
			LockOperation other = first.putIfAbsent(operation.name(), operation);
			if (other == null) {
				continue;
			}
			boolean semaphore = operation.permits() > 1 || other.permits() > 1;
			if (operation.permits() != other.permits() || (semaphore && operation.type() != other.type())) {
				throw new InvalidLockAnnotationException(operation.description(), "permits",
						Integer.toString(operation.permits()),
						"lock name '" + operation.name() + "' is used with " + describe(operation) + " here and with "
								+ describe(other) + " on " + other.description()
								+ "; methods that share a name share its Redis keys, and one key is one kind",
						"Give both methods the same permits, or give one of them a name of its own.", null);
			}
		}
	}

	private static String describe(LockOperation operation) {
		return (operation.permits() > 1) ? operation.permits() + " permits (a semaphore)"
				: "1 permit (a " + operation.type().name().toLowerCase(Locale.ROOT) + " lock)";
	}

}
