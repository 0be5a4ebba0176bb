package io.github.distributedlock.transaction;

import java.time.Duration;
import java.util.Objects;

import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockLostException;

import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * Refuses to commit a transaction under a lost lock: just before a transaction commits, checks every
 * distributed lock its thread holds through {@code @DistributedLock}, {@code DistributedLockTemplate.execute} or
 * another handle in the {@link LockContext}, and throws {@link LockLostException} if one is lost or its
 * confirmed lease ends within the margin. The transaction manager then rolls back and the exception propagates
 * from the commit, so the work's writes do not land after another owner may have taken the lock.
 * <p>
 * A {@link TransactionExecutionListener}: Spring Boot adds it to the transaction managers it auto-configures
 * (JDBC, JPA, ...); add it to a transaction manager of your own with
 * {@code transactionManager.addListener(guard)}. It checks ({@link LockContext#checkHeld(Duration)}) what this client knows, with no round trip: a
 * healthy lock costs a read of its confirmed lease per commit. Spring calls it before the commit of every new
 * transaction (an inner {@code REQUIRES_NEW} one too) and before the release of every savepoint (a
 * {@code NESTED} one), so each of them is checked; a transaction that joins an outer one is checked when the
 * outer one commits. A transaction on a thread that holds no lock is not affected. Thread-safe.
 */
public class LockCommitGuard implements TransactionExecutionListener {

	private final Duration margin;

	/**
	 * Creates a guard.
	 * @param margin how long each lock's lease must still be confirmed for at the commit, as the longest a
	 * commit may take; not negative
	 * @throws IllegalArgumentException if {@code margin} is negative
	 */
	public LockCommitGuard(Duration margin) {
		Objects.requireNonNull(margin, "margin must not be null");
		if (margin.isNegative()) {
			throw new IllegalArgumentException("The commit guard's margin must not be negative, was " + margin);
		}
		this.margin = margin;
	}

	/**
	 * Returns the margin.
	 * @return how long each lock's lease must still be confirmed for at a commit
	 */
	public Duration getMargin() {
		return this.margin;
	}

	/**
	 * Checks the locks of the committing thread.
	 * @param transaction the transaction about to commit
	 * @throws LockLostException if a lock of this thread is lost or its confirmed lease ends within the margin;
	 * the transaction is rolled back
	 */
	@Override
	public void beforeCommit(TransactionExecution transaction) {
		LockContext.checkHeld(this.margin);
	}

}
