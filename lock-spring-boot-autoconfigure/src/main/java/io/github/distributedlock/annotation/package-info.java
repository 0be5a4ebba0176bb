/**
 * The {@link io.github.distributedlock.annotation.DistributedLock} annotation and its enums.
 */
@NullMarked
package io.github.distributedlock.annotation;

import org.jspecify.annotations.NullMarked;
