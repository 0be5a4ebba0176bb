package io.github.distributedlock.test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * Holds a lock on a thread of its own, from construction until {@link #close()}.
 */
public final class LockHolder implements AutoCloseable {

	private final CountDownLatch release = new CountDownLatch(1);

	private final Thread thread;

	public LockHolder(Lock lock) throws InterruptedException {
		CountDownLatch held = new CountDownLatch(1);
		this.thread = new Thread(() -> {
			lock.lock();
			held.countDown();
			try {
				this.release.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				lock.unlock();
			}
		}, "lock-holder");
		this.thread.start();
		if (!held.await(10, TimeUnit.SECONDS)) {
			throw new IllegalStateException("The holder did not get " + lock + " within 10 s");
		}
	}

	@Override
	public void close() {
		this.release.countDown();
		try {
			this.thread.join(10_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
