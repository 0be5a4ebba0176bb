/**
 * Spring Boot Actuator support for distributed locks: the {@code distributedlocks} endpoint and the
 * {@code distributedLock} health contributor. Used only when Actuator is on the class path.
 */
@NullMarked
package io.github.distributedlock.actuate;

import org.jspecify.annotations.NullMarked;
