/**
 * The {@code @DistributedLock} method interceptor, its advisor, SpEL key evaluation, and the checks of the
 * annotation (at each call and, for every bean, at startup).
 */
@NullMarked
package io.github.distributedlock.aop;

import org.jspecify.annotations.NullMarked;
