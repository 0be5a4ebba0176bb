/**
 * The Redis implementation of {@link io.github.distributedlock.core.LockClient}: Lua scripts (under
 * {@code src/main/resources/io/github/distributedlock/redis/}), owner identity, lease renewal (the
 * watchdog) and release notifications over Redis pub/sub.
 */
@NullMarked
package io.github.distributedlock.redis;

import org.jspecify.annotations.NullMarked;
