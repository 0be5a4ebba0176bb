package io.github.distributedlock.local;

import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The wait of one acquisition for a {@link LocalKey}: queued behind those that came before it, it sleeps on the
 * key's condition until a change lets it in, its deadline passes, or (interruptible) it is interrupted; it also
 * wakes when the earliest hard lease or minimum hold among the holders ends, since nobody signals that. Runs under
 * the key's mutex. Stateless.
 */
final class KeyWait {

	private KeyWait() {
	}

	/**
	 * Waits until the acquisition enters the key, under its mutex.
	 * @param key the key, whose mutex the caller holds
	 * @param acquisition the acquisition, which could not enter at once
	 * @param deadline the {@link System#nanoTime()} at which to give up; ignored when {@code unlimited}
	 * @param unlimited whether to wait without a deadline
	 * @param interruptible whether an interrupt ends the wait; otherwise the interrupt status is set again on return
	 * @return the new hold, or {@code null} if the deadline passed first
	 * @throws InterruptedException if {@code interruptible} and the thread was interrupted while waiting
	 */
	static @Nullable LocalHold await(LocalKey key, KeyRequest acquisition, long deadline, boolean unlimited,
			boolean interruptible) throws InterruptedException {
		KeyWaiter waiter = key.startWaiting(acquisition);
		boolean interrupted = false;
		try {
			while (true) {
				long now = System.nanoTime();
				long remaining = unlimited ? LocalKey.FOREVER : deadline - now;
				if (remaining <= 0) {
					return null;
				}
				try {
					key.changed.awaitNanos(Math.min(remaining, untilFirstEnd(key, now)));
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						throw ex;
					}
					interrupted = true;
				}
				key.purge(System.nanoTime());
				if (key.canEnter(acquisition, waiter)) {
					return LeaseEnds.watch(key, key.enter(acquisition));
				}
			}
		}
		finally {
			key.stopWaiting(waiter);
			// whoever entered or gave up, those behind it may now go in
			key.changed.signalAll();
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Nanoseconds until the first hard lease or minimum hold among the key's holders ends. */
	private static long untilFirstEnd(LocalKey key, long now) {
		long first = LocalKey.FOREVER;
		for (LocalHold hold : key.holds()) {
			if (hold.expires()) {
				first = Math.min(first, hold.deadline() - now);
			}
		}
		return Math.max(first, TimeUnit.MICROSECONDS.toNanos(100));
	}

}
