package io.github.distributedlock.smoke.prometheus;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;

import org.springframework.stereotype.Service;

/**
 * The locked work, one method per way a lock shows in the meters. Thread-safe.
 */
@Service
class LockedWork {

	/**
	 * Holds the lock {@code held} until {@code done} counts down: renewed every second (lease 3 s) meanwhile.
	 * @param done when to return
	 * @throws InterruptedException if interrupted while waiting
	 */
	@DistributedLock(name = "held", key = "#id", lease = "3s")
	public void hold(String id, CountDownLatch done) throws InterruptedException {
		done.await(60, TimeUnit.SECONDS);
	}

	/**
	 * Works {@code millis} under the lock {@code contended}, whose callers wait at most 100 ms: all but one of
	 * several callers at once time out.
	 * @param millis how long the work takes
	 * @throws InterruptedException if interrupted while working
	 */
	@DistributedLock(name = "contended", acquireTimeout = "100ms")
	public void contended(long millis) throws InterruptedException {
		Thread.sleep(millis);
	}

	/**
	 * Works {@code millis} under the lock {@code skipped}, which is tried once ({@code @Scheduled} jobs' default):
	 * the callers that find it taken skip the work, as a timeout that waited for nothing.
	 * @param millis how long the work takes
	 * @return {@code true} when it ran, {@code null} when skipped
	 * @throws InterruptedException if interrupted while working
	 */
	@DistributedLock(name = "skipped", acquireTimeout = "0", onFailure = OnLockFailure.SKIP)
	public Boolean skipped(long millis) throws InterruptedException {
		Thread.sleep(millis);
		return true;
	}

	/**
	 * Works 1.5 s under the lock {@code lost}, whose lease of 500 ms is not renewed: the lock is lost under the
	 * work, and the release throws {@code LockLostException}.
	 * @throws InterruptedException if interrupted while working
	 */
	@DistributedLock(name = "lost", lease = "500ms", autoRenew = false)
	public void overrun() throws InterruptedException {
		Thread.sleep(1500);
	}

}
