package io.github.distributedlock.docs;

// tag::template[]
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import org.springframework.stereotype.Service;

@Service
class InvoiceService {

	private final DistributedLockTemplate locks;

	InvoiceService(DistributedLockTemplate locks) {
		this.locks = locks;
	}

	String render(long id) {
		return locks.execute("invoice:" + id, () -> renderPdf(id));   // same semantics as the annotation
	}

	void custom(long id) {
		LockDefinition definition = LockDefinition.builder("invoice:" + id)
				.lease(Duration.ofSeconds(10))
				.acquireTimeout(Duration.ZERO)       // try once
				.autoRenew(false)                    // the lease is a hard limit
				.build();
		try {
			locks.execute(definition, () -> writeFile(id));  // the callback's IOException, unwrapped
		}
		catch (IOException ex) {
			/* ... */
		}
		locks.execute("cleanup:" + id, () -> { deleteDrafts(id); });  // code that returns nothing
		boolean ran = locks.tryExecute(definition, () -> { deleteDrafts(id); });  // false: not acquired in time
	}

	void withLockApi() {
		Lock lock = locks.getLock("report");                       // java.util.concurrent.locks.Lock
		ReadWriteLock rw = locks.getReadWriteLock("price:" + 42);  // java.util.concurrent.locks.ReadWriteLock
		lock.lock();                                               // waits as long as it takes: no acquire-timeout
		try { /* ... */ } finally { lock.unlock(); }
	}

	private String renderPdf(long id) { return "..."; }

	private String writeFile(long id) throws IOException { return "..."; }

	private void deleteDrafts(long id) { /* ... */ }
}
// end::template[]
