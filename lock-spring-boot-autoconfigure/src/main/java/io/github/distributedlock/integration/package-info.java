/**
 * Spring Integration on these locks: a {@link org.springframework.integration.support.locks.LockRegistry}
 * whose locks are the template's, so that {@code LockRegistryLeaderInitiator} elects one leader across
 * instances and the Spring Integration components that take a {@code LockRegistry} lock in Redis.
 */
@NullMarked
package io.github.distributedlock.integration;

import org.jspecify.annotations.NullMarked;
