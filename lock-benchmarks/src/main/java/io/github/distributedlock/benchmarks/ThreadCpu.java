package io.github.distributedlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * CPU time of the JVM's threads over a window, by thread: {@link ThreadMXBean#getThreadCpuTime(long)} read at
 * the start, every 200 ms and at the end, so that a thread that ends inside the window (an idle pool thread)
 * keeps the CPU time last seen. A thread that starts inside the window counts from zero. Not thread-safe: one
 * window at a time, from one thread.
 */
final class ThreadCpu {

	private static final long SAMPLE_MILLIS = 200;

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	/** Thread id to its name, CPU nanoseconds at the start of the window and last seen. */
	private final Map<Long, Sample> samples = new HashMap<>();

	private final Thread sampler;

	private volatile boolean running = true;

	private ThreadCpu() {
		sample(true);
		this.sampler = new Thread(() -> {
			while (this.running) {
				try {
					TimeUnit.MILLISECONDS.sleep(SAMPLE_MILLIS);
				}
				catch (InterruptedException ex) {
					return;
				}
				sample(false);
			}
		}, "bench-cpu-sampler");
		this.sampler.setDaemon(true);
		this.sampler.start();
	}

	/**
	 * Starts a window now.
	 * @return the window
	 */
	static ThreadCpu start() {
		return new ThreadCpu();
	}

	private synchronized void sample(boolean baseline) {
		long[] ids = this.threads.getAllThreadIds();
		ThreadInfo[] infos = this.threads.getThreadInfo(ids);
		for (int i = 0; i < ids.length; i++) {
			long cpu = this.threads.getThreadCpuTime(ids[i]);
			if (cpu < 0 || infos[i] == null || infos[i].getThreadName().equals("bench-cpu-sampler")) {
				continue;
			}
			String name = infos[i].getThreadName();
			Sample sample = this.samples.computeIfAbsent(ids[i], (id) -> new Sample(name, 0));
			if (baseline) {
				sample.start = cpu;
			}
			sample.last = cpu;
		}
	}

	/**
	 * Ends the window.
	 * @return CPU seconds in the window per thread name, the digits of each name replaced by {@code N} (so the
	 * threads of one pool add up), sorted by name
	 */
	synchronized Map<String, Double> stop() throws InterruptedException {
		this.running = false;
		this.sampler.interrupt();
		this.sampler.join();
		sample(false);
		Map<String, Double> seconds = new TreeMap<>();
		for (Sample sample : this.samples.values()) {
			seconds.merge(sample.name.replaceAll("[0-9]+", "N"), (sample.last - sample.start) / 1e9, Double::sum);
		}
		return seconds;
	}

	/**
	 * The CPU seconds of the threads whose (digit-free) names start with one of {@code prefixes}.
	 * @param byName what {@link #stop()} returned
	 * @param prefixes name prefixes
	 * @return the sum
	 */
	static double sum(Map<String, Double> byName, String... prefixes) {
		double sum = 0;
		for (Map.Entry<String, Double> entry : byName.entrySet()) {
			for (String prefix : prefixes) {
				if (entry.getKey().startsWith(prefix)) {
					sum += entry.getValue();
					break;
				}
			}
		}
		return sum;
	}

	/**
	 * The CPU time of the whole JVM process so far (every thread, the garbage collector and the JIT included).
	 * @return nanoseconds, or -1 if the JVM does not tell
	 */
	static long processCpuNanos() {
		if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
			return os.getProcessCpuTime();
		}
		return -1;
	}

	private static final class Sample {

		String name;

		long start;

		long last;

		Sample(String name, long start) {
			this.name = name;
			this.start = start;
		}

	}

}
