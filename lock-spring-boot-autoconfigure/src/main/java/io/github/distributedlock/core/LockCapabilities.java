package io.github.distributedlock.core;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What a store supports, declared up front by {@link LockClient#capabilities()}: its name (for messages, such as
 * {@code "redis"}) and its {@link LockCapability capabilities}. Immutable and thread-safe.
 *
 * @param store the store's name, as messages name it; not blank
 * @param supported what it supports beyond an exclusive reentrant lock acquired by the calling thread
 */
public record LockCapabilities(String store, Set<LockCapability> supported) {

	/** How many capabilities there are: a store supporting that many supports every one. */
	private static final int ALL_CAPABILITIES = LockCapability.values().length;

	/**
	 * Checks and copies the values.
	 * @param store the store's name
	 * @param supported what it supports
	 * @throws IllegalArgumentException if {@code store} is blank
	 */
	public LockCapabilities {
		Objects.requireNonNull(store, "store must not be null");
		if (store.isBlank()) {
			throw new IllegalArgumentException("The store name must not be blank");
		}
		supported = Set.copyOf(supported);
	}

	/**
	 * Returns the capabilities of a store.
	 * @param store the store's name
	 * @param supported what it supports
	 * @return the capabilities
	 */
	public static LockCapabilities of(String store, LockCapability... supported) {
		Set<LockCapability> set = EnumSet.noneOf(LockCapability.class);
		set.addAll(Arrays.asList(supported));
		return new LockCapabilities(store, set);
	}

	/**
	 * Tells whether the store supports a capability.
	 * @param capability the capability
	 * @return {@code true} if supported
	 */
	public boolean supports(LockCapability capability) {
		return this.supported.contains(capability);
	}

	/**
	 * Refuses a request that needs what the store lacks, before it reaches the store.
	 * @param request the request
	 * @throws UnsupportedOperationException if the store lacks a capability the request needs; the message names
	 * the store, the lock and what it lacks
	 */
	public void check(LockRequest request) {
		if (this.supported.size() == ALL_CAPABILITIES) {
			// a store with every capability (the Redis and local stores): nothing to refuse, nothing to compute
			return;
		}
		for (LockCapability required : LockCapability.requiredBy(request)) {
			if (!supports(required)) {
				throw new UnsupportedOperationException("The lock store '" + this.store + "' does not support "
						+ required.description() + ", which lock '" + request.key() + "' needs");
			}
		}
	}

}
