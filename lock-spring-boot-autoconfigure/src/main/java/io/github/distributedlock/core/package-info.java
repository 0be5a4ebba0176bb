/**
 * The client-facing lock API: {@link io.github.distributedlock.core.DistributedLockTemplate}, lock
 * definitions, exceptions and the {@code java.util.concurrent.locks} views. No Redis types here; the
 * Redis implementation of {@link io.github.distributedlock.core.LockClient} lives in
 * {@code io.github.distributedlock.redis}.
 */
@NullMarked
package io.github.distributedlock.core;

import org.jspecify.annotations.NullMarked;
