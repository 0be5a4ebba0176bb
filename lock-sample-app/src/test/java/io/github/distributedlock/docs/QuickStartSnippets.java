package io.github.distributedlock.docs;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;

import org.springframework.stereotype.Service;

/**
 * The README's quick-start snippets, compiled; {@link DocumentationSnippetsTests} checks the README shows
 * them as they are here.
 */
@SuppressWarnings("unused")
class QuickStartSnippets {

	record Order(String id) {
	}

	record Report(String text) {
	}

	record Price(long cents) {
	}

	// tag::annotation[]
	@Service
	class OrderService {

		// one holder at a time per order id, across every instance
		@DistributedLock(name = "order", key = "#order.id", lease = "30s", acquireTimeout = "5s")
		public void pay(Order order) { /* ... */ }

		// runs once across all instances; the others skip instead of waiting
		@DistributedLock(name = "report", acquireTimeout = "0", onFailure = OnLockFailure.SKIP)
		public Optional<Report> nightlyReport() { return Optional.of(new Report("...")); }

		// several keys: all are locked, in one fixed order, so opposite calls never deadlock
		@DistributedLock(name = "account", key = {"#from", "#to"})
		public void transfer(String from, String to, long cents) { /* ... */ }

		// many readers at once, or one writer
		@DistributedLock(name = "price", key = "#sku", type = LockType.READ)
		public Price price(String sku) { return new Price(100); }

		@DistributedLock(name = "price", key = "#sku", type = LockType.WRITE)
		public void reprice(String sku, Price price) { /* ... */ }
	}
	// end::annotation[]

	// tag::template[]
	@Service
	class InvoiceService {

		private final DistributedLockTemplate locks;

		InvoiceService(DistributedLockTemplate locks) {
			this.locks = locks;
		}

		String render(long id) {
			return locks.execute("invoice:" + id, () -> renderPdf(id));   // same semantics as the annotation
		}

		void custom(long id) throws IOException {
			LockDefinition definition = LockDefinition.builder("invoice:" + id)
					.lease(Duration.ofSeconds(10))
					.acquireTimeout(Duration.ZERO)       // try once
					.autoRenew(false)                    // the lease is a hard limit
					.build();
			locks.execute(definition, () -> writeFile(id)); // checked exceptions pass through unwrapped
		}

		void withLockApi() {
			Lock lock = locks.getLock("report");                       // java.util.concurrent.locks.Lock
			ReadWriteLock rw = locks.getReadWriteLock("price:" + 42);  // java.util.concurrent.locks.ReadWriteLock
			lock.lock();
			try { /* ... */ } finally { lock.unlock(); }
		}
	}
	// end::template[]

	static String renderPdf(long id) {
		return "pdf " + id;
	}

	static Void writeFile(long id) throws IOException {
		return null;
	}

}
