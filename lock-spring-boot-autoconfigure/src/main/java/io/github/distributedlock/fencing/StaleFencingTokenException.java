package io.github.distributedlock.fencing;

import io.github.distributedlock.core.DistributedLockException;

/**
 * A fenced write was refused: the store has accepted a greater fencing token before, so the writer's lock was
 * lost and another owner has written since. The write changed nothing. Its writer should stop: whatever it
 * computed under the lock may be stale.
 */
public class StaleFencingTokenException extends DistributedLockException {

	private static final long serialVersionUID = 1L;

	/** The refused token. */
	private final long token;

	/**
	 * Creates the exception.
	 * @param token the refused fencing token
	 * @param what what was refused, completing the message, such as {@code "the update of stock"}
	 */
	public StaleFencingTokenException(long token, String what) {
		super("Fencing token " + token + " was refused for " + what
				+ ": a newer holder of the lock has written since (this holder's lock was lost)");
		this.token = token;
	}

	/**
	 * Returns the refused token.
	 * @return the fencing token of the refused write
	 */
	public long getToken() {
		return this.token;
	}

}
