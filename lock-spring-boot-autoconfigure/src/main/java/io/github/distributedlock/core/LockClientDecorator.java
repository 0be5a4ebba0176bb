package io.github.distributedlock.core;

/**
 * Wraps the {@link LockClient} that the auto-configured {@link DistributedLockTemplate} runs on, to add
 * behaviour around every acquisition (such as timing it) without changing the client: each bean of this type
 * in the application context decorates it, in their order. A decorator delegates every method.
 */
@FunctionalInterface
public interface LockClientDecorator {

	/**
	 * Returns a client that adds behaviour to {@code client}.
	 * @param client the client to wrap (possibly decorated already)
	 * @return the decorated client; {@code client} itself to add nothing
	 */
	LockClient decorate(LockClient client);

}
