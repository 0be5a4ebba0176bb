package io.github.distributedlock.redis;

import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The threads of one {@link RedisLockClient}, none of which waits for a lock: a timer (ends waits, runs the
 * watchdog's sweeps), the subscription's (a connect attempt while Redis is down must hold up neither), and,
 * with a blocking Redis client only, threads that run the tries after a wait, so that the timer and the
 * subscription never wait for Redis. All are daemon threads named {@code distributed-lock-<client id
 * prefix>-...}. Thread-safe.
 */
final class ClientThreads implements AutoCloseable {

	/** Idle threads of the blocking-client pool end after this many seconds. */
	private static final long KEEP_ALIVE_SECONDS = 10;

	final ScheduledThreadPoolExecutor timer;

	final ScheduledThreadPoolExecutor subscriber;

	/** Runs tries after waits: the waking thread itself for an asynchronous client. */
	final Executor resume;

	private final @Nullable ThreadPoolExecutor blockingResume;

	/**
	 * @param name prefix of the threads' names
	 * @param blocking whether Redis commands block their thread (then tries after a wait get threads of their own)
	 */
	ClientThreads(String name, boolean blocking) {
		this.timer = new ScheduledThreadPoolExecutor(1, LeaseWatchdog.daemonThreads(name + "-timer"));
		// timeouts of waits that ended sooner go at once, not at their deadline
		this.timer.setRemoveOnCancelPolicy(true);
		this.subscriber = new ScheduledThreadPoolExecutor(1, LeaseWatchdog.daemonThreads(name + "-subscription"));
		if (blocking) {
			this.blockingResume = new ThreadPoolExecutor(0, Integer.MAX_VALUE, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
					new SynchronousQueue<>(), LeaseWatchdog.daemonThreads(name + "-waiter"));
			this.resume = this.blockingResume;
		}
		else {
			this.blockingResume = null;
			this.resume = Runnable::run;
		}
	}

	/**
	 * Stops the threads. The timer still ends the waits it has scheduled (a delayed task runs after a plain
	 * shutdown), so that acquisitions waiting at shutdown end too, failing; it takes no new task.
	 */
	@Override
	public void close() {
		this.timer.shutdown();
		this.subscriber.shutdownNow();
		if (this.blockingResume != null) {
			this.blockingResume.shutdown();
		}
	}

}
