/**
 * Spring Boot auto-configuration of distributed locks and its {@code distributed-lock.*} properties.
 */
@NullMarked
package io.github.distributedlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
