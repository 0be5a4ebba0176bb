package io.github.distributedlock.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Runs test work on many threads at once, and the read-modify-write that exclusion tests guard.
 */
public final class Concurrently {

	private Concurrently() {
	}

	/** Work of one thread; {@code thread} is its number, from 0. */
	@FunctionalInterface
	public interface Task {

		void run(int thread) throws Exception;

	}

	/**
	 * Runs {@code task} on {@code threads} threads released together, and waits for all of them.
	 * @throws Exception the first failure of any thread, or a timeout after {@code timeoutSeconds}
	 */
	public static void run(int threads, long timeoutSeconds, Task task) throws Exception {
		runOn(Executors.newFixedThreadPool(threads), threads, timeoutSeconds, task);
	}

	/**
	 * Runs {@code task} as {@code threads} tasks of {@code pool} released together, waits for all of them, and
	 * shuts the pool down.
	 * @throws Exception the first failure of any task, or a timeout after {@code timeoutSeconds}
	 */
	public static void runOn(ExecutorService pool, int threads, long timeoutSeconds, Task task) throws Exception {
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				futures.add(pool.submit(() -> {
					start.await();
					task.run(thread);
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get(timeoutSeconds, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	/**
	 * Adds one to a counter in Redis by reading it and writing it back: loses updates unless a lock makes
	 * the callers take turns.
	 */
	public static void incrementUnsafely(StringRedisTemplate redis, String counterKey) {
		String value = redis.opsForValue().get(counterKey);
		redis.opsForValue().set(counterKey, Integer.toString((value == null) ? 1 : Integer.parseInt(value) + 1));
	}

}
