/**
 * The {@code @DistributedLock} method interceptor, its advisor and SpEL key evaluation.
 */
@NullMarked
package io.github.distributedlock.aop;

import org.jspecify.annotations.NullMarked;
