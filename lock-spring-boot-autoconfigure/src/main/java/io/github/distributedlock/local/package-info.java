/**
 * An in-JVM {@link io.github.distributedlock.core.LockClient} with the semantics of the Redis one inside one
 * JVM (reentrant, read/write, semaphores, leases, timeouts, fencing tokens, minimum hold), for tests of users' code and
 * single-instance development ({@code distributed-lock.store=local}). It excludes nothing across JVMs.
 */
@NullMarked
package io.github.distributedlock.local;

import org.jspecify.annotations.NullMarked;
