package io.github.distributedlock.docs;

import java.time.Duration;
import java.util.Map;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockLoss;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.fencing.FencedJdbc;
import io.github.distributedlock.fencing.FencedRedis;
import reactor.core.publisher.Flux;

import org.springframework.transaction.annotation.Transactional;

/**
 * The snippets of docs/lock-loss.md, compiled.
 */
@SuppressWarnings("unused")
class LockLossSnippets {

	interface Batch {

		boolean hasNext();

		void processNext() throws InterruptedException;

		Flux<String> events();

	}

	private Batch batch;

	private DistributedLockTemplate lockTemplate;

	private FencedJdbc fencedJdbc;

	private FencedRedis fencedRedis;

	private String json;

	// tag::interrupt[]
	@DistributedLock(name = "import", onLost = OnLockLoss.INTERRUPT)
	public void importAll() throws InterruptedException {
		while (batch.hasNext()) {
			batch.processNext();            // blocking I/O and sleeps end with InterruptedException on a loss
		}
	}
	// end::interrupt[]

	// tag::reactive[]
	@DistributedLock(name = "feed", onLost = OnLockLoss.INTERRUPT)
	public Flux<String> feed() {
		return batch.events();              // cancelled on a loss; the subscriber gets LockLostException
	}
	// end::reactive[]

	void handle() {
		// tag::handle[]
		try (LockHandle lock = lockTemplate.acquire(LockDefinition.builder("report").onLost(OnLockLoss.NONE).build())) {
			lock.whenLost().thenAccept((loss) -> log(loss.getMessage()));   // told at once, on a client thread
			while (batch.hasNext()) {
				lock.checkHeld(Duration.ofSeconds(5));   // stop before a step of up to 5 s could outlive the lease
				step();
			}
		}
		// end::handle[]
	}

	// tag::guard[]
	@DistributedLock(name = "stock", key = "#sku")
	@Transactional                           // inside the lock: committed (or rolled back) before the release
	public void restock(String sku, int units) {
		stockRepository.setUnits(sku, units);   // rolled back if the lock is lost before the commit
	}
	// end::guard[]

	// tag::jdbc[]
	@DistributedLock(name = "stock", key = "#sku")
	public void restockFenced(String sku, int units) {
		fencedJdbc.update("UPDATE stock SET units = :units, fence = :token WHERE sku = :sku AND fence < :token",
				Map.of("sku", sku, "units", units));   // :token is LockContext.current().fencingToken()
	}
	// end::jdbc[]

	void redis() {
		// tag::redis[]
		fencedRedis.set("report:latest", json, LockContext.current().fencingToken());   // GET reads it
		fencedRedis.hset("stock:42", "units", "7", LockContext.current().fencingToken()); // HGET reads it
		// end::redis[]
	}

	private final StockRepository stockRepository = (sku, units) -> {
	};

	interface StockRepository {

		void setUnits(String sku, int units);

	}

	private void step() {
	}

	private static void log(String message) {
	}

}
