package io.github.distributedlock.docs;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;

import org.springframework.scheduling.annotation.Scheduled;

/**
 * The documentation's snippets on fencing tokens, lock handles and the minimum hold, compiled.
 */
@SuppressWarnings("unused")
class FencingSnippets {

	interface Stock {

		boolean write(String sku, int units, long fencingToken);

	}

	interface Store {

		void save(String report, long fencingToken);

	}

	private Stock stock;

	private Store store;

	private DistributedLockTemplate lockTemplate;

	private String report;

	// tag::restock[]
	@DistributedLock(name = "stock", key = "#sku")
	public boolean restock(String sku, int units) {
		return stock.write(sku, units, LockContext.current().fencingToken());   // the store refuses a stale token
	}
	// end::restock[]

	void handle() {
		// tag::handle[]
		try (LockHandle lock = lockTemplate.acquire(LockDefinition.of("report"))) {   // or tryAcquire: Optional
			store.save(report, lock.fencingToken());
		}                                                                             // close() releases, from any thread
		// end::handle[]
	}

	// tag::scheduled[]
	@Scheduled(cron = "0 */10 * * * *")            // every instance fires it at the same (clock) moments
	@DistributedLock(name = "report-job", acquireTimeout = "0", onFailure = OnLockFailure.SKIP, holdAtLeast = "5m")
	public void run() { /* ... */ }                 // runs once per period across all instances
	// end::scheduled[]

}
