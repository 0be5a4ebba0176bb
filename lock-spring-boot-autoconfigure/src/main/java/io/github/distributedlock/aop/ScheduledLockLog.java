package io.github.distributedlock.aop;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Says at startup which {@code @Scheduled} methods run under a {@code @DistributedLock} and how (one INFO line),
 * and warns about one whose explicit settings make an instance that lost the lock wait and then run the job a
 * second time for the same period, and about a {@code fixedRate}/{@code fixedDelay} one without
 * {@code holdAtLeast}, which the instances run at phases of their own.
 */
final class ScheduledLockLog {

	private static final Log logger = LogFactory.getLog(LockAnnotationValidator.class);

	private ScheduledLockLog() {
	}

	/**
	 * Warns when a scheduled method waits for its lock: every instance starts the job at the same time, so the
	 * losers wait for the winner and then run the job again.
	 * @param beanName the bean of the method
	 * @param operation the checked annotation
	 */
	static void warnIfWaits(String beanName, LockOperation operation) {
		Duration timeout = operation.acquireTimeout();
		if (operation.scheduled() == null || timeout == null || timeout.isZero()) {
			return;
		}
		logger.warn("@Scheduled method " + operation.description() + " (bean '" + beanName + "') sets @DistributedLock("
				+ "acquireTimeout = \"" + timeout.toMillis() + "ms\"): an instance that loses the lock waits up to "
				+ timeout.toMillis() + " ms and, when the winner finishes within that, runs the job again for the same "
				+ "period. Leave acquireTimeout out (a scheduled job then tries once and skips) unless every instance "
				+ "is meant to run it in turn.");
	}

	/**
	 * Warns when a {@code fixedRate} or {@code fixedDelay} method has no minimum hold. Such a schedule fires at
	 * each instance's own phase (counted from its startup or its last run), so a job shorter than the gap
	 * between two instances' firings has released its lock before the next instance fires, and runs on both in
	 * that period. A default hold derived from the rate is not applied: with {@code fixedDelay} the period is
	 * the delay plus the job's own time, unknown at startup, and a hold the user did not write would also block
	 * every other use of the lock's key.
	 * @param beanName the bean of the method
	 * @param operation the checked annotation
	 */
	static void warnIfOwnPhase(String beanName, LockOperation operation) {
		ScheduledLock scheduled = operation.scheduled();
		if (scheduled == null || scheduled.ownPhase() == null || operation.holdAtLeast() != null) {
			return;
		}
		logger.warn("@Scheduled(" + scheduled.ownPhase() + ") method " + operation.description() + " (bean '"
				+ beanName + "') has @DistributedLock without holdAtLeast: " + scheduled.ownPhase()
				+ " fires at each instance's own phase, counted from its own startup, so a job that ends before "
				+ "another instance fires runs there too, in most periods. Set holdAtLeast a little shorter than "
				+ "the period (as ShedLock's lockAtLeastFor), or use a cron schedule, which fires at the same "
				+ "moments on every instance (holdAtLeast = \"0\" says the runs on several instances are meant).");
	}

	/**
	 * Logs one INFO line naming the locked scheduled methods, with their lock and what a losing instance does;
	 * nothing when there is none.
	 * @param operations the checked annotations
	 */
	static void logLocked(Collection<LockOperation> operations) {
		List<LockOperation> scheduled = operations.stream().filter((operation) -> operation.scheduled() != null)
			.toList();
		if (scheduled.isEmpty() || !logger.isInfoEnabled()) {
			return;
		}
		logger.info("@Scheduled methods under @DistributedLock (" + scheduled.size() + "): " + scheduled.stream()
			.map(ScheduledLockLog::describe)
			.collect(Collectors.joining("; ")));
	}

	private static String describe(LockOperation operation) {
		ScheduledLock scheduled = operation.scheduled();
		Duration timeout = operation.acquireTimeout();
		String waits = (timeout == null) ? "waits up to distributed-lock.acquire-timeout"
				: timeout.isZero() ? "tries once" : "waits up to " + timeout.toMillis() + " ms";
		return operation.description() + " on lock '" + operation.name() + "': " + waits
				+ ((scheduled != null && scheduled.timeoutDefaulted()) ? " (scheduled default)" : "")
				+ ", then " + operation.onFailure()
				+ ((scheduled != null && scheduled.onFailureDefaulted()) ? " (scheduled default)" : "");
	}

}
