package io.github.distributedlock.redlock;

/**
 * How one Redlock node stands, as its client's last command to it found (see
 * {@link RedlockLockClient#pingNodes()}). Immutable.
 *
 * @param node the node, {@code host:port} (never a user or password)
 * @param answering whether it answered the last command
 * @param state in words: {@code up}, {@code not answering: <why>}, {@code refuses this client's credentials or
 * permissions ...: <Redis's words>}, or {@code not asked yet}
 */
public record RedlockNodeStatus(String node, boolean answering, String state) {
}
