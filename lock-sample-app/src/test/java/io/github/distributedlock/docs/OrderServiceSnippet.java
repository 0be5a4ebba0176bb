package io.github.distributedlock.docs;

// tag::annotation[]
import java.util.Optional;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockFailure;
import org.springframework.stereotype.Service;

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

/** The README's quick-start annotation snippet, compiled (see {@link DocumentationSnippetsTests}). */
record Order(String id) {
}

record Report(String text) {
}

record Price(long cents) {
}
