package io.github.distributedlock.redis;

/**
 * How Redis confirmed an acquisition: when the command that did was sent (the lease counts from then), the fencing
 * token it handed out, and the connection generation it ran in.
 *
 * @param sentAt the {@link System#nanoTime()} before the confirming command was sent
 * @param token the fencing token
 * @param generation the connection generation (see {@link ServerLife#generationOf}), or
 * {@link ConnectionBreaks#BROKEN}
 */
record Grant(long sentAt, long token, long generation) {
}
