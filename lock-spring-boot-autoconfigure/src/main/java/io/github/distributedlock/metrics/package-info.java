/**
 * Micrometer metrics and observations of distributed locks: the {@code distributed.lock.*} meters and the
 * {@code distributed.lock.acquire} observation. Used only when Micrometer is on the class path.
 */
@NullMarked
package io.github.distributedlock.metrics;

import org.jspecify.annotations.NullMarked;
