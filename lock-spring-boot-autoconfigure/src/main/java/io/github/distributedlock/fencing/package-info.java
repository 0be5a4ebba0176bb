/**
 * Fenced writes: the protected store refuses a write whose fencing token is older than the last one it accepted,
 * so a holder whose lock was lost (a long pause, a partition) cannot overwrite the newer holder's data.
 * {@link io.github.distributedlock.fencing.FencedJdbc} for a relational table, over Spring's {@code JdbcClient};
 * {@link io.github.distributedlock.fencing.FencedRedis} for strings and hash fields in Redis; both throw
 * {@link io.github.distributedlock.fencing.StaleFencingTokenException} for a refused write.
 */
@NullMarked
package io.github.distributedlock.fencing;

import org.jspecify.annotations.NullMarked;
