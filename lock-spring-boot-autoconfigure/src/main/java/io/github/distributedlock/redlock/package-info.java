/**
 * The Redlock store ({@code distributed-lock.store=redlock}): locks held on a majority of independent Redis
 * primaries, with fencing tokens minted on a quorum. See {@code docs/redlock.md}.
 */
@NullMarked
package io.github.distributedlock.redlock;

import org.jspecify.annotations.NullMarked;
