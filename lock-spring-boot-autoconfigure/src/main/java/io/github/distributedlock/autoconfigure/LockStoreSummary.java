package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * What the startup line of {@link DistributedLockStartupLogger} says about the store the locks live in, and the
 * store's own check once the context has started. Each store's auto-configuration gives its own, so that the line
 * needs no class of another store (the local store's works without Spring Data Redis). Implementations read
 * configuration only, never connect, and are called on the thread that refreshes the context.
 */
interface LockStoreSummary {

	/**
	 * A summary that knows nothing of its own: the line then says what the client bean is.
	 */
	LockStoreSummary NONE = () -> null;

	/**
	 * Where the locks are and under which key prefix, such as {@code on Redis localhost:6379, key prefix 'lock:'}.
	 * @return the words after "Distributed locks ", or {@code null} when the client is not this store's own (the
	 * application defined another), so that the line names the client's type instead
	 */
	@Nullable String where();

	/**
	 * The store's settings worth a mention, put after the default lease and acquire timeout.
	 * @return text starting with {@code ", "}, such as {@code ", replica sync 1 replica within 100ms"}, or an empty
	 * string (the default)
	 */
	default String settings() {
		return "";
	}

	/**
	 * What the store cannot do here, put after the client id.
	 * @return text starting with {@code "; "}, or an empty string (the default)
	 */
	default String notes() {
		return "";
	}

	/**
	 * Checks the store's configuration against the locks in use, after the line was logged; logs what is wrong.
	 * Does nothing by default.
	 * @param shortestLease the shortest auto-renewed lease: the default lease, or a shorter one of an annotation
	 */
	default void check(Duration shortestLease) {
	}

}
