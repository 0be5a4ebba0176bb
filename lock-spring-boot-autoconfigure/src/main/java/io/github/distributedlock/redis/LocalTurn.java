package io.github.distributedlock.redis;

/**
 * An owner's turn: {@link #HEAD}, {@link #BYPASS}, {@link #TIMED_OUT}, {@link #CANCELLED} or a hand-over.
 * @param handedOverAt for a hand-over, the {@link System#nanoTime()} its lease counts from; otherwise 0
 * @param token for a hand-over, the fencing token it gave; otherwise 0
 */
record LocalTurn(long handedOverAt, long token) {

	/** The owner is the head: it acquires in Redis. */
	static final LocalTurn HEAD = new LocalTurn(0, 0);

	/** The head overran its hard lease or is known lost: the owner acquires in Redis without being the head. */
	static final LocalTurn BYPASS = new LocalTurn(0, 0);

	/** The deadline passed, or the lock was busy for a try without waiting. */
	static final LocalTurn TIMED_OUT = new LocalTurn(0, 0);

	/** The owner gave up ({@link LocalQueue#cancel(LocalQueue.Waiter)}). */
	static final LocalTurn CANCELLED = new LocalTurn(0, 0);

	/**
	 * Tells whether the lock was handed to the owner: it owns it in Redis already.
	 * @return {@code true} for a hand-over
	 */
	boolean handedOver() {
		return this != HEAD && this != BYPASS && this != TIMED_OUT && this != CANCELLED;
	}

}
