package io.github.distributedlock.test;

import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

/**
 * Test work on a thread of its own, whose state a test can watch: started at construction, its result
 * read with {@link #get(long)}.
 */
public final class OnThread<T> implements AutoCloseable {

	private final FutureTask<T> task;

	private final Thread thread;

	private OnThread(String name, Callable<T> work) {
		this.task = new FutureTask<>(work);
		this.thread = new Thread(this.task, name);
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/** Runs {@code work} on a new thread named {@code name}. */
	public static <T> OnThread<T> start(String name, Callable<T> work) {
		return new OnThread<>(name, work);
	}

	public Thread thread() {
		return this.thread;
	}

	/** The work's result, waiting at most {@code seconds}; its exception, unwrapped, if it threw. */
	public T get(long seconds) throws Exception {
		try {
			return this.task.get(seconds, TimeUnit.SECONDS);
		}
		catch (java.util.concurrent.ExecutionException ex) {
			if (ex.getCause() instanceof Exception cause) {
				throw cause;
			}
			throw ex;
		}
	}

	public boolean isDone() {
		return this.task.isDone();
	}

	/** Interrupts the thread if it still runs, and waits up to 10 s for it to end. */
	@Override
	public void close() throws InterruptedException {
		if (!this.task.isDone()) {
			this.thread.interrupt();
		}
		this.thread.join(10_000);
	}

}
