package io.github.distributedlock.smoke.prometheus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.distributedlock.core.LockAcquisitionException;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Takes the locks of {@link LockedWork} on request, and answers how it went (the name of what the lock threw, or
 * {@code released}):
 * <ul>
 * <li>{@code POST /held/{id}}: holds {@code held:{id}} until {@code POST /held/{id}/end};</li>
 * <li>{@code POST /contended?callers=4}: that many callers at once on {@code contended};</li>
 * <li>{@code POST /skipped?callers=3}: that many callers at once on the try-once {@code skipped};</li>
 * <li>{@code POST /lost}: works past the hard lease of {@code lost}.</li>
 * </ul>
 */
@RestController
class WorkController {

	private final LockedWork work;

	private final Map<String, CountDownLatch> holds = new ConcurrentHashMap<>();

	WorkController(LockedWork work) {
		this.work = work;
	}

	@PostMapping("/held/{id}")
	String hold(@PathVariable String id) {
		CountDownLatch done = this.holds.computeIfAbsent(id, (key) -> new CountDownLatch(1));
		return outcome(() -> this.work.hold(id, done));
	}

	@PostMapping("/held/{id}/end")
	void end(@PathVariable String id) {
		this.holds.computeIfAbsent(id, (key) -> new CountDownLatch(1)).countDown();
	}

	@PostMapping("/contended")
	List<String> contended(@RequestParam(defaultValue = "4") int callers) throws InterruptedException {
		return atOnce(callers, () -> outcome(() -> this.work.contended(500)));
	}

	@PostMapping("/skipped")
	List<String> skipped(@RequestParam(defaultValue = "3") int callers) throws InterruptedException {
		return atOnce(callers, () -> (this.work.skipped(500) != null) ? "ran" : "skipped");
	}

	@PostMapping("/lost")
	String lost() {
		return outcome(this.work::overrun);
	}

	private static List<String> atOnce(int callers, Call call) throws InterruptedException {
		ExecutorService threads = Executors.newFixedThreadPool(callers);
		try {
			List<Future<String>> calls = new ArrayList<>();
			for (int i = 0; i < callers; i++) {
				calls.add(threads.submit(call::run));
			}
			List<String> outcomes = new ArrayList<>();
			for (Future<String> future : calls) {
				outcomes.add(future.get());
			}
			return outcomes;
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex.getCause());
		}
		finally {
			threads.shutdown();
		}
	}

	private static String outcome(Work locked) {
		try {
			locked.run();
			return "released";
		}
		catch (LockAcquisitionException ex) {
			return "timeout";
		}
		catch (Exception ex) {
			return ex.getClass().getSimpleName();
		}
	}

	/** Work under a lock. */
	@FunctionalInterface
	interface Work {

		void run() throws Exception;

	}

	/** A call that answers how it went. */
	@FunctionalInterface
	interface Call {

		String run() throws Exception;

	}

}
